/// A loop that runs on a `_LoopCore` (`MainLoop`, `TestLoop`): how the package's upper layers reach the core's
/// instrumentation without the `Loop` contract knowing about them (a named mailbox adds its drops as a drop source).
///
/// Not API. `core` may be read from any thread; what the core's methods allow is theirs to say.
package protocol _LoopCoreOwner: AnyObject {
    /// The loop's scheduling core.
    nonisolated var core: _LoopCore { get }
}
