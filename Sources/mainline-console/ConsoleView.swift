import MainlineInspectorSchema

/// The console's views, each on a number key and a letter.
enum ConsoleView: Int, CaseIterable {
    case overview = 1
    case slowestJobs
    case mailboxes
    case viewModels
    case timers
    case stalls
    case streams

    /// The title on the tab line.
    var title: String {
        switch self {
        case .overview: "overview"
        case .slowestJobs: "slowest jobs"
        case .mailboxes: "mailboxes"
        case .viewModels: "view models"
        case .timers: "timers"
        case .stalls: "stalls"
        case .streams: "streams"
        }
    }

    /// The letter that shows it, beside its number.
    var letter: Character {
        switch self {
        case .overview: "o"
        case .slowestJobs: "j"
        case .mailboxes: "m"
        case .viewModels: "v"
        case .timers: "t"
        case .stalls: "s"
        case .streams: "b"
        }
    }

    /// The view a key shows, if it is one of the views' keys.
    init?(key: UInt8) {
        let character = Character(Unicode.Scalar(key))
        if let number = character.wholeNumberValue, let view = ConsoleView(rawValue: number) {
            self = view
        } else if let view = ConsoleView.allCases.first(where: { $0.letter == character }) {
            self = view
        } else {
            return nil
        }
    }

    /// The view's lines for `snapshot`.
    func lines(_ snapshot: InspectorSnapshot, rates: IterationRates) -> [String] {
        switch self {
        case .overview: OverviewView.lines(snapshot, rates: rates)
        case .slowestJobs: SlowestJobsView.lines(snapshot)
        case .mailboxes: MailboxesView.lines(snapshot)
        case .viewModels: ViewModelsView.lines(snapshot)
        case .timers: TimersView.lines(snapshot)
        case .stalls: StallsView.lines(snapshot)
        case .streams: StreamsView.lines(snapshot)
        }
    }
}
