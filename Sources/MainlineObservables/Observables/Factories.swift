import MainlineLoop

// Kaluga's factory functions, and the adapters from `AsyncSequence`s, closures and key paths.

/// An observable that always holds `value`.
///
/// Must be called on the main actor.
///
/// - Parameters:
///   - value: The value.
///   - loop: The loop observers are called on.
/// - Returns: The observable.
@MainActor
public func observableOf<T>(_ value: T, loop: any Loop = MainLoop.main) -> InitializedObservable<T> {
    InitializedSubject(value, loop: loop)
}

/// A subject holding `value`.
///
/// Must be called on the main actor.
///
/// - Parameters:
///   - value: The first value.
///   - loop: The loop observers are called on.
/// - Returns: The subject.
@MainActor
public func subjectOf<T>(_ value: T, loop: any Loop = MainLoop.main) -> InitializedSubject<T> {
    InitializedSubject(value, loop: loop)
}

/// A subject with no value yet.
///
/// Must be called on the main actor.
///
/// - Parameters:
///   - type: The value type.
///   - loop: The loop observers are called on.
/// - Returns: The subject.
@MainActor
public func uninitializedSubjectOf<T>(
    _ type: T.Type = T.self,
    loop: any Loop = MainLoop.main
) -> UninitializedSubject<T> {
    UninitializedSubject(loop: loop)
}

/// A subject holding `value`, where `nil` stands for `defaultValue`.
///
/// Must be called on the main actor.
///
/// - Parameters:
///   - value: The first value; `nil` for the default.
///   - defaultValue: The value `nil` stands for.
///   - loop: The loop observers are called on.
/// - Returns: The subject.
@MainActor
public func subjectOf<T: Sendable>(
    _ value: T?,
    default defaultValue: T,
    loop: any Loop = MainLoop.main
) -> DefaultSubject<T> {
    DefaultSubject(value, default: defaultValue, loop: loop)
}

/// An observable of the elements of `sequence`: nothing until the first element, then each element in turn (posted
/// into the loop), until the sequence ends or fails; it keeps its last value.
///
/// Must be called on the main actor. Releasing the observable cancels the task that iterates the sequence.
///
/// - Parameters:
///   - sequence: The source.
///   - loop: The loop observers are called on.
/// - Returns: The observable.
@MainActor
public func observableOf<S: AsyncSequence & Sendable>(
    _ sequence: S,
    loop: any Loop = MainLoop.main
) -> UninitializedObservable<S.Element> where S.Element: Sendable {
    let core = _ObservableCore<S.Element>(loop: loop, state: .nothing)
    core.feed(from: sequence) { $0 }
    return UninitializedObservable(core: core)
}

/// An observable of the elements of `sequence`, where `nil` elements (and the time before the first one) stand for
/// `defaultValue`.
///
/// Must be called on the main actor. Releasing the observable cancels the task that iterates the sequence.
///
/// - Parameters:
///   - sequence: The source of optional values.
///   - defaultValue: The value `nil` stands for.
///   - loop: The loop observers are called on.
/// - Returns: The observable.
@MainActor
public func observableOf<S: AsyncSequence & Sendable, T: Sendable>(
    _ sequence: S,
    default defaultValue: T,
    loop: any Loop = MainLoop.main
) -> DefaultObservable<T> where S.Element == T? {
    let observable = DefaultObservable(default: defaultValue, loop: loop)
    observable.core.feed(from: sequence) { $0 ?? defaultValue }
    return observable
}

/// A subject over a read/write pair: it starts with `get()`, and every change made through the subject is written
/// with `set` before the observers are told.
///
/// Must be called on the main actor. Changes made behind the subject's back (not through it) are not observed.
///
/// - Parameters:
///   - get: Reads the value, once, now.
///   - set: Writes a new value.
///   - loop: The loop observers are called on.
/// - Returns: The subject.
@MainActor
public func subjectOf<T>(
    get: () -> T,
    set: @escaping @MainActor (T) -> Void,
    loop: any Loop = MainLoop.main
) -> InitializedSubject<T> {
    let subject = InitializedSubject(get(), loop: loop)
    subject.core.didApply = set
    return subject
}

/// A subject over a property of an object: it starts with the property's value, and every change made through the
/// subject is written to the property (while the object lives).
///
/// Must be called on the main actor. The object is held weakly. To also follow changes made to the property
/// directly, use ``InitializedSubject/bind(to:_:)`` with an `@Observable` object.
///
/// - Parameters:
///   - object: The object.
///   - keyPath: The property.
///   - loop: The loop observers are called on.
/// - Returns: The subject.
@MainActor
public func subjectOf<Object: AnyObject, T>(
    _ object: Object,
    _ keyPath: ReferenceWritableKeyPath<Object, T>,
    loop: any Loop = MainLoop.main
) -> InitializedSubject<T> {
    subjectOf(
        get: { object[keyPath: keyPath] },
        set: { [weak object] value in object?[keyPath: keyPath] = value },
        loop: loop
    )
}
