/// A receiver that could not start.
enum ReceiverError: Error, CustomStringConvertible {
    /// It was not listening on the channel (or stream) after 30 s.
    case notListening(String)

    var description: String {
        switch self {
        case .notListening(let name): "not listening on \(name) after 30 s"
        }
    }
}
