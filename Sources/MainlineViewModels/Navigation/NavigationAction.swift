/// A request to navigate somewhere, with an optional ``NavigationBundle`` of data for the destination.
///
/// Types that adopt `NavigationAction` are `Sendable` values; all operations on them must be thread-safe, because
/// a route can build an action on any thread before it hops into the loop to navigate. The usual adopter is an
/// enum of the destinations one view model can reach.
///
/// ```swift
/// enum OrdersNavigation: NavigationAction, Equatable {
///     case checkout(NavigationBundle)
///     case help
///
///     var bundle: NavigationBundle? {
///         switch self {
///         case .checkout(let bundle): bundle
///         case .help: nil
///         }
///     }
/// }
/// ```
///
/// A ``Navigator`` performs actions of one such type. For an action that only carries one value, use
/// ``SingleValueNavigationAction``.
///
/// Upstream Kaluga writes `NavigationAction<B>`, a base class generic over the bundle's row type, that each
/// destination subclasses. Mainline makes it a protocol that the destinations' enum adopts, and drops the
/// parameter: a bundle's rows are checked when they are read (``NavigationBundle/get(_:)-(NavigationBundleSpecRow<T>)``
/// throws for a row of another spec, as Kaluga's `get` does), so a type parameter would add ceremony to every
/// action type without adding a check. The enum case says which destination, and thereby which spec, a bundle
/// follows.
public protocol NavigationAction: Sendable {
    /// The data for the destination, or `nil` when the action carries none.
    var bundle: NavigationBundle? { get }
}
