import Foundation
import MainlineInspectorSchema

#if canImport(Glibc)
import Glibc
#endif

/// The live view: asks for a snapshot every interval and draws the current view; reads keys in between.
///
/// `LiveConsole` is **not** thread-safe: the console's one thread runs it.
///
/// Keys: `1`–`7` (or `o`, `j`, `m`, `v`, `t`, `s`, `b`) switch views, `f` freezes the display (no new snapshots; the
/// header counts how long) and unfreezes it, `q` quits. The connection is kept from one refresh to the next; one the
/// inspector closed while the console asked nothing (frozen, or a long interval) is replaced at the next refresh. When
/// the process ended or restarted, a new connection is tried every interval; the header says so meanwhile, and the
/// last snapshot stays on screen.
final class LiveConsole {
    private let path: String
    private let intervalMilliseconds: Int
    private var connection: InspectorConnection?
    private var snapshot: InspectorSnapshot
    private var rates = IterationRates()
    private var view = ConsoleView.overview
    /// When `f` froze the display (the console's clock), or `nil` while it is live.
    private var frozenAt: Double?
    /// Why the last refresh failed, shown in the header until one succeeds.
    private var problem: String?
    private let terminal = TerminalSession()
    private let clockStart = Date()

    /// Attaches: the first snapshot must come, or there is nothing to show.
    ///
    /// - Throws: `InspectorConnection.Failure`, for `main` to print and exit 1.
    init(path: String, intervalMilliseconds: Int) throws(InspectorConnection.Failure) {
        self.path = path
        self.intervalMilliseconds = intervalMilliseconds
        let connection = try InspectorConnection(path: path)
        snapshot = try connection.ask("snapshot", as: InspectorSnapshot.self).document
        self.connection = connection
        rates.add(snapshot, fallbackTime: 0)
    }

    /// Runs until `q` or a signal; returns the exit status (0, or 128 + the signal).
    func run() -> Int32 {
        terminal.enter()
        defer { terminal.restore() }
        draw()
        var nextRefresh = Self.now() + Double(intervalMilliseconds) / 1_000
        var readsKeys = true
        while true {
            var descriptors = [pollfd(fd: terminal.signals, events: Int16(POLLIN), revents: 0)]
            if readsKeys { descriptors.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
            let wait = max(0, Int32(((nextRefresh - Self.now()) * 1_000).rounded(.up)))
            let ready = poll(&descriptors, nfds_t(descriptors.count), wait)
            if ready < 0 && errno != EINTR { return 1 }
            if descriptors[0].revents != 0 {
                var signal: UInt8 = 0
                while read(terminal.signals, &signal, 1) == 1 {
                    if Int32(signal) != SIGWINCH { return 128 + Int32(signal) }
                }
                draw()  // the terminal changed size
            }
            if readsKeys, descriptors.count > 1, descriptors[1].revents != 0 {
                var key: UInt8 = 0
                if read(STDIN_FILENO, &key, 1) == 1 {
                    if key == UInt8(ascii: "q") { return 0 }
                    handle(key: key)
                } else {
                    readsKeys = false  // end of input: keys are over, the view goes on
                }
            }
            if Self.now() >= nextRefresh {
                if frozenAt == nil { refresh() }
                draw()
                nextRefresh = Self.now() + Double(intervalMilliseconds) / 1_000
            }
        }
    }

    private func handle(key: UInt8) {
        if key == UInt8(ascii: "f") {
            frozenAt = frozenAt == nil ? Self.now() : nil
        } else if let view = ConsoleView(key: key) {
            self.view = view
        } else {
            return
        }
        draw()
    }

    private func refresh() {
        do throws(InspectorConnection.Failure) {
            snapshot = try InspectorConnection.ask(
                "snapshot",
                as: InspectorSnapshot.self,
                path: path,
                reusing: &connection
            ).document
            rates.add(snapshot, fallbackTime: Self.now())
            problem = nil
        } catch {
            problem = error.description
        }
    }

    private func draw() {
        terminal.draw(Screen.lines(of: snapshot, view: view, rates: rates, status: status))
    }

    private var status: String {
        if let problem { return "DETACHED: \(problem); retrying every \(intervalMilliseconds) ms" }
        if let frozenAt {
            return "FROZEN for \(Formatting.duration(milliseconds: (Self.now() - frozenAt) * 1_000)) (f: live)"
        }
        return "LIVE every \(intervalMilliseconds) ms (f: freeze)"
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// The whole screen: a header, the tab line, and the view.
enum Screen {
    static func lines(
        of snapshot: InspectorSnapshot,
        view: ConsoleView,
        rates: IterationRates,
        status: String
    ) -> [String] {
        let process = "\(snapshot.process ?? "?") (pid \(Formatting.integer(snapshot.pid)))"
        let uptime = snapshot.uptimeSeconds.map { "up " + Formatting.uptime(seconds: $0) } ?? ""
        let tabs = ConsoleView.allCases.map { tab in
            let name = "\(tab.rawValue) \(tab.title)"
            return tab == view ? "[\(name)]" : name
        }.joined(separator: "  ")
        return ["mainline-console  \(process)  \(uptime)  \(status)", tabs + "   f freeze  q quit", ""]
            + view.lines(snapshot, rates: rates)
    }
}
