import Wire

extension SimulatedDisk {
    /// What a crash did to one file that had changes not synced.
    public struct CrashedFile: Sendable, Equatable {
        public enum Fate: Sendable, Equatable {
            /// Never synced: its name did not survive.
            case vanished
            /// Every change since the last sync was lost.
            case lost
            /// The changes before the last reached the platter, and of the last write its first `kept` bytes (whole
            /// sectors; 0 for a truncation, which was lost).
            case torn(kept: Int)
        }

        public let path: String
        public let fate: Fate
    }

    /// The node loses its power (or, after a cut during a write, stops): what was not synced is lost, or torn, by a
    /// seeded choice per file (in path order, so the draws are the same for the same seed); every handle opened before
    /// is stale from now on. After a cut during a write, the files are those at the cut: nothing after it counts.
    ///
    /// - returns: what happened to each file that had unsynced changes, by path.
    @discardableResult
    public func crash() -> [CrashedFile] {
        mutate { state in
            state.boot += 1
            state.armed = nil
            if let atCut = state.atCut {
                state.files = atCut
                state.atCut = nil
            }
            var crashed: [CrashedFile] = []
            for path in state.files.keys.sorted() {
                let file = state.files[path]!
                guard file.durableExists else {
                    state.files[path] = nil
                    crashed.append(CrashedFile(path: path, fate: .vanished))
                    continue
                }
                guard let last = file.changes.last else { continue }
                var survivor = file.durable
                let fate: CrashedFile.Fate
                if draw() & 1 == 0 {
                    fate = .lost
                } else {
                    for change in file.changes.dropLast() { change.applied(to: &survivor) }
                    let kept = Self.tornPrefix(of: last, pieces: { draw(below: $0) })
                    if case .write(let offset, let bytes) = last, kept > 0 {
                        FileChange.write(offset: offset, bytes: Array(bytes.prefix(kept))).applied(to: &survivor)
                    }
                    fate = .torn(kept: kept)
                }
                var recovered = SimulatedFile()
                recovered.apply(.write(offset: 0, bytes: survivor))
                recovered.sync()
                state.files[path] = recovered
                crashed.append(CrashedFile(path: path, fate: fate))
            }
            return crashed
        }
    }

    /// How many bytes of `change` a tear keeps: the write's first k sector pieces (it starts and ends where the write
    /// does, and is cut at every sector boundary within), k drawn below the number of pieces, so a tear never keeps the
    /// whole write. A truncation keeps nothing.
    static func tornPrefix(of change: FileChange, pieces draw: (Int) -> Int) -> Int {
        guard case .write(let offset, let bytes) = change, !bytes.isEmpty else { return 0 }
        let end = offset + bytes.count
        let firstBoundary = (offset / sectorBytes + 1) * sectorBytes
        let pieces = firstBoundary >= end ? 1 : 1 + (end - firstBoundary + sectorBytes - 1) / sectorBytes
        let kept = draw(pieces)
        guard kept > 0 else { return 0 }
        return min(firstBoundary + (kept - 1) * sectorBytes, end) - offset
    }
}
