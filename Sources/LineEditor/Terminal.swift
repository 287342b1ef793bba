import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Signal handlers receive no context, so what they need lives in process-wide storage: the
// terminal attributes to restore and re-apply, and the dispositions to forward signals to.
// `Terminal` writes it on the editing thread only while no handler is installed (before
// `enableRawMode` installs them, after `disableRawMode` removes them); handlers only read it,
// apart from the atomics. A lock is not an option inside a signal handler, and this ordering
// makes one unnecessary. Only one line editor can own the terminal at a time, which is the
// nature of a terminal anyway.
nonisolated(unsafe) private var cookedAttributes = termios()
nonisolated(unsafe) private var rawAttributes = termios()
nonisolated(unsafe) private var terminalDescriptor: Int32 = 0
/// Previous disposition of each signal, indexed by signal number, to restore and forward to.
nonisolated(unsafe) private let previousActions: UnsafeMutablePointer<sigaction> = {
    let pointer = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    pointer.initialize(repeating: sigaction(), count: 65)
    return pointer
}()
/// Signals whose handlers are installed, as a bit set.
private let installedSignals = Atomic<UInt64>(0)
/// Set between raw-mode entry and exit, so a resumed process knows to go raw again.
private let rawModeWanted = Atomic<Bool>(false)
/// Set by the SIGCONT handler (after Ctrl-Z / `fg`) and by forwarded signals that did not end the
/// process: the editing loop redraws, re-entering raw mode when needed.
private let needsRestore = Atomic<Bool>(false)

/// Set by the SIGWINCH handler: the editing loop redraws for the new width.
private let resized = Atomic<Bool>(false)

/// Signals that would end the process: the terminal goes back to cooked mode before they act.
private let terminatingSignals: [Int32] = [SIGTERM, SIGHUP, SIGINT, SIGQUIT]

/// Raw mode on the controlling terminal and the signal handling that keeps it from leaking.
///
/// ISIG is off in raw mode, so Ctrl-C and Ctrl-Z arrive as bytes; signals sent by other means
/// (`kill`, a closing terminal) restore the terminal, then go to whatever disposition the program
/// had before, and SIGTSTP/SIGCONT leave raw mode while stopped and re-enter it on `fg`.
enum Terminal {
    /// Puts `descriptor` in raw mode and installs the signal handlers; false if it is not a terminal.
    static func enableRawMode(_ descriptor: Int32) -> Bool {
        var original = termios()
        guard tcgetattr(descriptor, &original) == 0 else { return false }
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        // Output post-processing off: every line break written is an explicit "\r\n".
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { controlCharacters in
            controlCharacters[Int(VMIN)] = 1
            controlCharacters[Int(VTIME)] = 0
        }
        terminalDescriptor = descriptor
        cookedAttributes = original
        rawAttributes = raw
        // TCSADRAIN, not TCSAFLUSH: keys typed ahead (or pasted lines) belong to the next line.
        guard tcsetattr(descriptor, TCSADRAIN, &raw) == 0 else { return false }
        rawModeWanted.store(true, ordering: .sequentiallyConsistent)
        needsRestore.store(false, ordering: .sequentiallyConsistent)
        installHandlers()
        return true
    }

    /// Removes the handlers (restoring the previous dispositions) and restores the terminal.
    static func disableRawMode() {
        rawModeWanted.store(false, ordering: .sequentiallyConsistent)
        removeHandlers()
        _ = tcsetattr(terminalDescriptor, TCSADRAIN, &cookedAttributes)
    }

    /// Whether a signal left or re-entered raw mode behind the editor's back since the last call;
    /// re-applies raw mode and the handlers if a forwarded signal did not end the process.
    static func takeRestoreRequest() -> Bool {
        guard needsRestore.exchange(false, ordering: .sequentiallyConsistent) else { return false }
        if rawModeWanted.load(ordering: .sequentiallyConsistent) {
            _ = tcsetattr(terminalDescriptor, TCSADRAIN, &rawAttributes)
            installHandlers()
        }
        return true
    }

    /// Whether the terminal changed size since the last call.
    static func takeResize() -> Bool {
        resized.exchange(false, ordering: .sequentiallyConsistent)
    }

    /// Stops the process as Ctrl-Z would with the terminal in cooked mode; returns after `fg`.
    /// False when job control is unavailable (SIGTSTP ignored, as in an orphaned process group).
    static func suspend() -> Bool {
        guard installedSignals.load(ordering: .sequentiallyConsistent) & (1 << UInt64(SIGTSTP)) != 0 else {
            return false
        }
        raise(SIGTSTP)
        return true
    }

    /// Width of the terminal on `descriptor`, falling back to `$COLUMNS` and then 80.
    static func columns(_ descriptor: Int32) -> Int {
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        if let value = getenv("COLUMNS"), let columns = Int(String(cString: value)), columns > 0 {
            return columns
        }
        return 80
    }

    /// Writes all of `string`, retrying short writes and interruptions.
    static func write(_ string: String, to descriptor: Int32) {
        var bytes = Array(string.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    // MARK: Signal handlers

    private static func installHandlers() {
        var installed: UInt64 = 0
        for signal in terminatingSignals + [SIGTSTP] where install(forwardingHandler: signal) {
            installed |= 1 << UInt64(signal)
        }
        if install(resumeHandler: SIGCONT) { installed |= 1 << UInt64(SIGCONT) }
        if install(resizeHandler: SIGWINCH) { installed |= 1 << UInt64(SIGWINCH) }
        installedSignals.store(installed, ordering: .sequentiallyConsistent)
    }

    private static func removeHandlers() {
        let installed = installedSignals.exchange(0, ordering: .sequentiallyConsistent)
        for signal in terminatingSignals + [SIGTSTP, SIGCONT, SIGWINCH] where installed & (1 << UInt64(signal)) != 0 {
            sigaction(signal, previousActions + Int(signal), nil)
        }
    }

    /// Installs the handler that restores the terminal and forwards the signal; leaves ignored
    /// signals ignored, since the program chose not to be stopped or ended by them.
    private static func install(forwardingHandler signal: Int32) -> Bool {
        var current = sigaction()
        sigaction(signal, nil, &current)
        guard !isIgnored(current) else { return false }
        saveIfFirstInstall(current, for: signal)
        return setHandler(signal) { received in
            _ = tcsetattr(terminalDescriptor, TCSANOW, &cookedAttributes)
            // Hand the signal to the previous disposition: it is blocked while this handler runs,
            // so the raise takes effect on return (ending or stopping the process, or running the
            // program's own handler). SIGTSTP goes to the default action, stopping the process.
            if received == SIGTSTP {
                var stop = sigaction()
                setHandlerField(&stop, SIG_DFL)
                sigaction(received, &stop, nil)
            } else {
                sigaction(received, previousActions + Int(received), nil)
            }
            needsRestore.store(true, ordering: .sequentiallyConsistent)
            raise(received)
        }
    }

    private static func install(resumeHandler signal: Int32) -> Bool {
        var current = sigaction()
        sigaction(signal, nil, &current)
        saveIfFirstInstall(current, for: signal)
        return setHandler(signal) { _ in
            guard rawModeWanted.load(ordering: .sequentiallyConsistent) else { return }
            _ = tcsetattr(terminalDescriptor, TCSADRAIN, &rawAttributes)
            needsRestore.store(true, ordering: .sequentiallyConsistent)
        }
    }

    /// The program's own SIGWINCH handler, if any, is set aside while a line is edited; a console
    /// has no other use for the terminal size in the meantime.
    private static func install(resizeHandler signal: Int32) -> Bool {
        var current = sigaction()
        sigaction(signal, nil, &current)
        saveIfFirstInstall(current, for: signal)
        return setHandler(signal) { _ in
            resized.store(true, ordering: .sequentiallyConsistent)
        }
    }

    /// Keeps the program's own disposition: on a re-install after a signal, the current one is the
    /// SIG_DFL our handler left behind.
    private static func saveIfFirstInstall(_ action: sigaction, for signal: Int32) {
        guard installedSignals.load(ordering: .sequentiallyConsistent) & (1 << UInt64(signal)) == 0 else { return }
        previousActions[Int(signal)] = action
    }

    /// Installs `handler` without SA_RESTART, so a blocked read returns EINTR and the editor can
    /// redraw right after a resume.
    private static func setHandler(_ signal: Int32, _ handler: @convention(c) (Int32) -> Void) -> Bool {
        var action = sigaction()
        setHandlerField(&action, handler)
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        return sigaction(signal, &action, nil) == 0
    }

    private static func isIgnored(_ action: sigaction) -> Bool {
        #if canImport(Darwin)
            let handler = action.__sigaction_u.__sa_handler
        #else
            let handler = action.__sigaction_handler.sa_handler
        #endif
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

private func setHandlerField(_ action: inout sigaction, _ handler: (@convention(c) (Int32) -> Void)?) {
    #if canImport(Darwin)
        action.__sigaction_u.__sa_handler = handler
    #else
        action.__sigaction_handler.sa_handler = handler
    #endif
}

/// `write(2)`; the name `write` inside `Terminal` means its own helper.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
