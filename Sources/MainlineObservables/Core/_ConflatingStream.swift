/// An `AsyncStream` fed by an observer that keeps only the newest unconsumed value; the observer is disposed when
/// the stream terminates.
@MainActor
func _conflatingStream<Element: Sendable>(
    of _: Element.Type,
    observe: (@escaping @MainActor (Element) -> Void) -> Disposable
) -> AsyncStream<Element> {
    let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(1))
    let disposable = observe { continuation.yield($0) }
    continuation.onTermination = { _ in disposable.dispose() }
    return stream
}
