/// A request line a client sends: `{"request":"snapshot"}` or `{"request":"recorder"}`; other keys are ignored.
///
/// `InspectorRequest` is a value type; all operations on it are thread-safe.
package struct InspectorRequest: Codable, Sendable, Equatable {
    /// `snapshot` or `recorder`; `nil` when the line has no `request` string.
    @InspectorField package var request: String? = nil

    /// A request for `request`.
    package init(request: String?) {
        self.request = request
    }
}

/// An error line: `{"error":"…","schema":1}`, exactly these two keys. After a refusal (`error` begins with
/// `refused: `) and after a timeout the inspector closes the connection; after a bad request it goes on serving it.
///
/// `InspectorErrorLine` is a value type; all operations on it are thread-safe.
package struct InspectorErrorLine: Codable, Sendable, Equatable {
    /// The schema's version.
    @InspectorField package var schema: Int? = nil
    /// What was wrong, as a sentence.
    @InspectorField package var error: String? = nil

    /// An error line of the current schema saying `error`.
    package init(_ error: String) {
        self.schema = InspectorJSON.schema
        self.error = error
    }
}

/// The answer to `{"request":"snapshot"}`: the process, and what its loops, mailboxes, view models and coordinators
/// are doing now.
///
/// `InspectorSnapshot` is a value type; all operations on it are thread-safe.
package struct InspectorSnapshot: Codable, Sendable, Equatable {
    /// The schema's version.
    @InspectorField package var schema: Int? = nil
    /// The process id.
    @InspectorField package var pid: Int? = nil
    /// `argv[0]` without its folders.
    @InspectorField package var process: String? = nil
    /// How long the process has run, in seconds.
    @InspectorField package var uptimeSeconds: Double? = nil
    /// Every loop of the process, in the order they were made.
    @InspectorList package var loops: [LoopSummary] = []
    /// The mailboxes made since an inspector started, still alive.
    @InspectorList package var mailboxes: [MailboxSummary] = []
    /// Likewise for view models.
    @InspectorList package var viewModels: [ViewModelSummary] = []
    /// Likewise for coordinators and containers of screens.
    @InspectorList package var coordinators: [CoordinatorSummary] = []
    /// MainlinePostgres' stream subscriptions and consumer group members made since an inspector started, still alive.
    @InspectorList package var streams: [StreamSummary] = []

    /// A snapshot document of the current schema.
    package init(
        pid: Int?,
        process: String?,
        uptimeSeconds: Double?,
        loops: [LoopSummary],
        mailboxes: [MailboxSummary] = [],
        viewModels: [ViewModelSummary] = [],
        coordinators: [CoordinatorSummary] = [],
        streams: [StreamSummary] = []
    ) {
        self.schema = InspectorJSON.schema
        self.pid = pid
        self.process = process
        self.uptimeSeconds = uptimeSeconds
        self.loops = loops
        self.mailboxes = mailboxes
        self.viewModels = viewModels
        self.coordinators = coordinators
        self.streams = streams
    }
}

/// The answer to `{"request":"recorder"}`: each loop's flight recorder, oldest event first.
///
/// `InspectorRecorderDocument` is a value type; all operations on it are thread-safe.
package struct InspectorRecorderDocument: Codable, Sendable, Equatable {
    /// The schema's version.
    @InspectorField package var schema: Int? = nil
    /// The process id.
    @InspectorField package var pid: Int? = nil
    /// `argv[0]` without its folders.
    @InspectorField package var process: String? = nil
    /// Every loop's recorder.
    @InspectorList package var loops: [LoopRecording] = []

    /// A recorder document of the current schema.
    package init(pid: Int?, process: String?, loops: [LoopRecording]) {
        self.schema = InspectorJSON.schema
        self.pid = pid
        self.process = process
        self.loops = loops
    }
}

/// One loop of the recorder document: who it is and what its flight recorder holds.
///
/// `LoopRecording` is a value type; all operations on it are thread-safe.
package struct LoopRecording: Codable, Sendable, Equatable {
    /// `main`, an `EventLoop`'s name.
    @InspectorField package var name: String? = nil
    /// `MainLoop`, `EventLoop` or `TestLoop`.
    @InspectorField package var kind: String? = nil
    /// As in `LoopSnapshot.State`.
    @InspectorField package var state: String? = nil
    /// The recorder's size.
    @InspectorField package var capacityBytes: Int? = nil
    /// The recorder's events, oldest first.
    @InspectorList package var events: [RecorderEvent] = []

    /// A loop's recording.
    package init(name: String?, kind: String?, state: String?, capacityBytes: Int?, events: [RecorderEvent]) {
        self.name = name
        self.kind = kind
        self.state = state
        self.capacityBytes = capacityBytes
        self.events = events
    }
}
