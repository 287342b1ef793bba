import Synchronization
import Testing
import Wire

@testable import SimulatedDisk

@Suite struct SimulatedDiskTests {
    /// A disk of its own world: its stream and the world's fault points from `seed`.
    static func disk(seed: UInt64 = 1) -> (SimulatedDisk, FaultPoints) {
        let faults = FaultPoints(random: RandomStream(seed: seed, name: "faults"))
        let disk = SimulatedDisk(node: "db", random: RandomStream(seed: seed, name: "disk:db"), faults: faults, tracer: DiscardingTraceSink())
        return (disk, faults)
    }

    static let old = [UInt8](repeating: 0x41, count: 2_048)
    static let new = [UInt8](repeating: 0x42, count: 2_048)

    @Test func readsSeeEveryWriteAndSyncMakesThemDurable() throws {
        let (disk, _) = Self.disk()
        let file = try disk.open("/var/a", create: true, boot: disk.boot)
        try disk.write(file, at: 10, [1, 2, 3])
        #expect(try disk.read(file, at: 0, count: 100) == [UInt8](repeating: 0, count: 10) + [1, 2, 3], "a gap reads as zeros, the end short")
        #expect(try disk.size(of: file) == 13)
        #expect(disk.durableContents(of: "/var/a") == nil, "never synced: its name would not survive")
        try disk.sync(file)
        #expect(disk.durableContents(of: "/var/a") == [UInt8](repeating: 0, count: 10) + [1, 2, 3])
        try disk.truncate(file, to: 11)
        #expect(try disk.read(file, at: 0, count: 100).count == 11)
        #expect(disk.hasUnsyncedChanges("/var/a"))
        #expect(throws: DiskError.self) { try disk.open("/var/b", create: false, boot: disk.boot) }
    }

    @Test func aCrashKeepsWhatWasSyncedAndForgetsFilesNeverSynced() throws {
        let (disk, _) = Self.disk()
        let kept = try disk.open("/kept", create: true, boot: disk.boot)
        try disk.write(kept, at: 0, Self.old)
        try disk.sync(kept)
        let lost = try disk.open("/never-synced", create: true, boot: disk.boot)
        try disk.write(lost, at: 0, Self.new)
        let crashed = disk.crash()
        #expect(crashed == [SimulatedDisk.CrashedFile(path: "/never-synced", fate: .vanished)])
        #expect(disk.paths == ["/kept"])
        #expect(disk.contents(of: "/kept") == Self.old)
        // Every handle from before the crash is dead, as the process that held it.
        #expect(throws: DiskError(.staleHandle, "/kept was opened before db crashed")) { try disk.read(kept, at: 0, count: 1) }
        #expect(throws: DiskError.self, "an open for the life that crashed") { try disk.open("/kept", create: false, boot: 0) }
        let reopened = try disk.open("/kept", create: false, boot: disk.boot)
        #expect(try disk.read(reopened, at: 0, count: 4) == [0x41, 0x41, 0x41, 0x41])
    }

    /// Over many seeds an unsynced overwrite is either lost whole or torn: the old contents with a prefix of whole
    /// sectors of the new ones, never all of it, never a part of a sector.
    @Test func anUnsyncedWriteIsLostOrTornAtSectorsBySeed() throws {
        var fates: Set<String> = []
        for seed in UInt64(1)...40 {
            let (disk, _) = Self.disk(seed: seed)
            let file = try disk.open("/f", create: true, boot: disk.boot)
            try disk.write(file, at: 0, Self.old)
            try disk.sync(file)
            try disk.write(file, at: 0, Self.new)
            let crashed = disk.crash()
            let after = try #require(disk.contents(of: "/f"))
            #expect(after.count == Self.old.count)
            let kept = after.prefix { $0 == 0x42 }.count
            #expect(kept % SimulatedDisk.sectorBytes == 0 && kept < Self.new.count, "seed \(seed) kept \(kept) bytes")
            #expect(after.dropFirst(kept).allSatisfy { $0 == 0x41 })
            switch crashed.first?.fate {
            case .lost: #expect(kept == 0)
            case .torn(let torn): #expect(torn == kept)
            default: Issue.record("seed \(seed): \(crashed)")
            }
            fates.insert(kept == 0 ? "none" : "some")
            // The same seed, the same choice.
            let (again, _) = Self.disk(seed: seed)
            let file2 = try again.open("/f", create: true, boot: again.boot)
            try again.write(file2, at: 0, Self.old)
            try again.sync(file2)
            try again.write(file2, at: 0, Self.new)
            #expect(again.crash() == crashed)
        }
        #expect(fates == ["none", "some"])
    }

    /// A tear keeps the earlier changes and cuts the last write at sector boundaries of the file, not of the write.
    @Test func aTearCutsTheLastWriteAtTheFilesSectorBoundaries() {
        let write = FileChange.write(offset: 100, bytes: [UInt8](repeating: 1, count: 1_000))  // 100..<1100: three pieces
        var pieces = 0
        #expect(
            SimulatedDisk.tornPrefix(
                of: write,
                pieces: { count in
                    pieces = count
                    return 0
                }) == 0)
        #expect(pieces == 3)
        #expect(SimulatedDisk.tornPrefix(of: write, pieces: { _ in 1 }) == 412)
        #expect(SimulatedDisk.tornPrefix(of: write, pieces: { _ in 2 }) == 924)
        let small = FileChange.write(offset: 0, bytes: [1, 2, 3])
        #expect(
            SimulatedDisk.tornPrefix(
                of: small,
                pieces: { count in
                    pieces = count
                    return 0
                }) == 0)
        #expect(pieces == 1)
        #expect(SimulatedDisk.tornPrefix(of: .truncate(size: 0), pieces: { _ in 1 }) == 0)
    }

    /// A power cut during a write: it falls on the change armed for, whatever file it is of; nothing after it reaches
    /// the disk (not a later write, sync or deletion), though the node's reads see its writes until its crash; the crash
    /// starts from the disk at the cut, so the write the power went in is the last one, the one a tear cuts.
    @Test func aPowerCutDuringAWriteKeepsTheDiskAsItWasThen() throws {
        var fates: Set<String> = []
        for seed in UInt64(1)...20 {
            let (disk, _) = Self.disk(seed: seed)
            let journal = try disk.open("/db-journal", create: true, boot: disk.boot)
            let database = try disk.open("/db", create: true, boot: disk.boot)
            try disk.write(database, at: 0, Self.old)
            try disk.sync(journal)
            try disk.sync(database)
            let cut = Mutex<[String]>([])
            disk.cutPower(atChange: 2) { path in cut.withLock { $0.append(path) } }
            try disk.write(journal, at: 0, Self.old)
            #expect(!disk.isPowerCut && cut.withLock { $0 }.isEmpty, "the first change is not the one armed for")
            try disk.write(database, at: 0, Self.new)
            #expect(disk.isPowerCut && cut.withLock { $0 } == ["/db"], "the second change, in another file, is")
            // What the node does before its crash: it reads its own writes, and none of it reaches the disk.
            try disk.sync(database)
            try disk.write(journal, at: 0, [9])
            try disk.truncate(journal, to: 0)
            try disk.sync(journal)
            try disk.delete("/db-journal", boot: disk.boot)
            let later = try disk.open("/later", create: true, boot: disk.boot)
            try disk.sync(later)
            #expect(try disk.read(database, at: 0, count: 1) == [0x42])
            let crashed = disk.crash()
            #expect(!disk.isPowerCut && disk.paths == ["/db", "/db-journal"], "the deletion and the new file came after the cut")
            #expect(cut.withLock { $0 }.count == 1, "a cut falls once")
            let journalAfter = try #require(disk.contents(of: "/db-journal"))
            let databaseAfter = try #require(disk.contents(of: "/db"))
            // The journal's write, before the cut, is lost or torn by its own draw: never whole, never the later ones.
            #expect(journalAfter.count < Self.old.count && journalAfter == Array(Self.old.prefix(journalAfter.count)), "seed \(seed)")
            switch crashed.first(where: { $0.path == "/db" })?.fate {
            case .lost?:
                fates.insert("lost")
                #expect(databaseAfter == Self.old, "seed \(seed): every unsynced change lost")
            case .torn(let kept)?:
                fates.insert("torn")
                #expect(kept % SimulatedDisk.sectorBytes == 0 && kept < Self.new.count, "seed \(seed): \(kept)")
                #expect(databaseAfter == Array(Self.new.prefix(kept)) + Array(Self.old.dropFirst(kept)), "seed \(seed)")
            default: Issue.record("seed \(seed): \(crashed)")
            }
        }
        #expect(fates == ["lost", "torn"])
    }

    /// An armed cut waits for its write; disarmed (`after heal`) or crashed first, it never falls.
    @Test func anArmedCutIsDisarmedByAHealOrACrash() throws {
        let (disk, _) = Self.disk()
        let file = try disk.open("/f", create: true, boot: disk.boot)
        disk.cutPower(atChange: 1) { _ in Issue.record("disarmed") }
        disk.disarmPowerCut()
        try disk.write(file, at: 0, [1])
        disk.cutPower(atChange: 1) { _ in Issue.record("crashed first") }
        disk.crash()
        let reopened = try disk.open("/g", create: true, boot: disk.boot)
        try disk.write(reopened, at: 0, [1])
        #expect(!disk.isPowerCut)
    }

    @Test func theFsyncLieReportsSuccessAndMakesNothingDurable() throws {
        let (disk, faults) = Self.disk()
        let file = try disk.open("/f", create: true, boot: disk.boot)
        try disk.write(file, at: 0, Self.old)
        try disk.sync(file)
        faults.set(SimulatedDisk.fsyncLieFault, .times(1))
        try disk.write(file, at: 0, Self.new)
        try disk.sync(file)
        #expect(disk.durableContents(of: "/f") == Self.old)
        #expect(faults.point(SimulatedDisk.fsyncLieFault)?.fired == 1)
        try disk.sync(file)
        #expect(disk.durableContents(of: "/f") == Self.new, "once: the next sync is honest")
    }

    @Test func readAndWriteErrorsFailTheCallAndChangeNothing() throws {
        let (disk, faults) = Self.disk()
        let file = try disk.open("/f", create: true, boot: disk.boot)
        try disk.write(file, at: 0, [1])
        faults.set(SimulatedDisk.writeErrorFault, .times(1))
        #expect(throws: DiskError.self) { try disk.write(file, at: 0, [2]) }
        faults.set(SimulatedDisk.readErrorFault, .times(1))
        #expect(throws: DiskError.self) { try disk.read(file, at: 0, count: 1) }
        #expect(try disk.read(file, at: 0, count: 1) == [1])
    }

    /// A world whose scenario names no disk fault never declares one: a swarm draws its faults from the declared
    /// points, and must not start lying about fsync by itself.
    @Test func theFaultPointsStayUndeclaredUntilNamed() throws {
        let (disk, faults) = Self.disk()
        let file = try disk.open("/f", create: true, boot: disk.boot)
        try disk.write(file, at: 0, [1])
        _ = try disk.read(file, at: 0, count: 1)
        try disk.sync(file)
        #expect(faults.all.isEmpty)
    }

    @Test func limitsAreErrorsNotTraps() throws {
        let (disk, _) = Self.disk()
        let file = try disk.open("/f", create: true, boot: disk.boot)
        #expect(throws: DiskError.self) { try disk.write(file, at: SimulatedDisk.maximumFileBytes, [1]) }
        #expect(throws: DiskError.self) { try disk.write(file, at: -1, [1]) }
        #expect(throws: DiskError.self) { try disk.truncate(file, to: SimulatedDisk.maximumFileBytes + 1) }
    }
}
