import Testing
import Wire

@testable import Swarm

/// ddmin on predicates whose answer is known: the result fails, and no single item of it can go.
@Suite struct DeltaDebuggingTests {
    /// 1-minimal: `fails(result)` holds and holds for no result with one item fewer.
    func isOneMinimal(_ result: [Int], _ fails: ([Int]) -> Bool) -> Bool {
        fails(result) && result.indices.allSatisfy { index in !fails(result.enumerated().filter { $0.offset != index }.map(\.element)) }
    }

    @Test func twoFaultsInOrderAreKeptAndNothingElse() {
        var runs = 0
        let fails = { (subset: [Int]) -> Bool in
            guard let a = subset.firstIndex(of: 7), let b = subset.firstIndex(of: 31) else { return false }
            return a < b
        }
        let kept = DeltaDebugging.minimise(Array(0..<40)) {
            runs += 1
            return fails($0)
        }
        #expect(kept == [7, 31])
        #expect(isOneMinimal(kept, fails))
        #expect(runs < 80, "ddmin took \(runs) runs")
    }

    @Test(arguments: 1...12)
    func aSeedsNeededItemsAreFoundExactly(seed: Int) {
        var generator = RandomStream(seed: UInt64(seed), name: "ddmin-test")
        let count = Int.random(in: 2...60, using: &generator)
        let needed = Set((0..<Int.random(in: 1...4, using: &generator)).map { _ in Int.random(in: 0..<count, using: &generator) })
        let fails = { (subset: [Int]) in needed.isSubset(of: subset) }
        let kept = DeltaDebugging.minimise(Array(0..<count), fails: fails)
        #expect(kept == needed.sorted())
    }

    /// A failure with two causes (either pair): the result is one of them, 1-minimal, not their union.
    @Test func ofTwoCausesOneIsKept() {
        let fails = { (subset: [Int]) in Set([3, 9]).isSubset(of: subset) || Set([20, 21]).isSubset(of: subset) }
        let kept = DeltaDebugging.minimise(Array(0..<30), fails: fails)
        #expect(kept == [3, 9] || kept == [20, 21], "\(kept)")
        #expect(isOneMinimal(kept, fails))
    }

    @Test func aFailureWithoutAnyItemKeepsNone() {
        #expect(DeltaDebugging.minimise([1, 2, 3]) { _ in true } == [])
        #expect(DeltaDebugging.minimise([5]) { _ in true } == [])
        #expect(DeltaDebugging.minimise([5]) { $0 == [5] } == [5])
    }
}
