/// A receiver that could not start.
enum ReceiverError: Error, CustomStringConvertible {
    /// It was not listening on the channel (or stream) after 30 s, or its connection ended first.
    case notListening(String)

    var description: String {
        switch self {
        case .notListening(let name): "not listening on \(name) (30 s passed, or the connection ended)"
        }
    }
}
