import MainlineLoop

/// A data source over an ``ArrayModel``: one section whose rows are cell view models made by a factory, cached,
/// and kept in step with every mutation of the model.
///
/// Must be used on the main actor.
///
/// ```swift
/// let tasks = ArrayModel(["write", "review"])
/// let source = MutableArrayDataSource(model: tasks) { task, _ in TaskCellViewModel(task) }
/// source.item(at: RowPath(section: 0, row: 1))    // made once, then cached
/// tasks.move(from: 1, to: 0)                      // the cached view model moves with its row
/// ```
///
/// Each mutation of the model is recorded at once (see ``DataSource/record(_:)``); the ``cache`` follows it
/// (``ViewModelCache/apply(_:)``): moved rows keep their view model, inserted and changed rows get a new one from
/// the factory when first asked for.
@MainActor
public final class MutableArrayDataSource<Element, CellViewModel>: DataSource<CellViewModel> {
    /// The model whose elements are the rows.
    public let model: ArrayModel<Element>
    /// The cell view models made so far, by row.
    public private(set) var cache = ViewModelCache<CellViewModel>()
    private let makeCellViewModel: @MainActor (Element, RowPath) -> CellViewModel

    /// Creates a source over `model`.
    ///
    /// - Parameters:
    ///   - model: The elements; the source follows its mutations from now on.
    ///   - loop: The loop that delivers change sets; the main loop unless a test passes a `TestLoop`.
    ///   - makeCellViewModel: Makes the view model of a row from its element and path, when first asked for.
    public init(
        model: ArrayModel<Element>,
        loop: any Loop = MainLoop.main,
        makeCellViewModel: @escaping @MainActor (Element, RowPath) -> CellViewModel
    ) {
        self.model = model
        self.makeCellViewModel = makeCellViewModel
        super.init(loop: loop)
        model.addListener { [weak self] changes in
            guard let self else { return false }
            cache.apply(changes)
            record(changes)
            return true
        }
    }

    /// One section, always.
    public override var numberOfSections: Int { 1 }

    /// The model's count for section 0; 0 otherwise.
    public override func numberOfRows(in section: Int) -> Int {
        section == 0 ? model.count : 0
    }

    /// The cell view model of the row at `path`, from the cache or made now and cached; a path outside the source
    /// traps.
    public override func item(at path: RowPath) -> CellViewModel {
        precondition(path.section == 0, "MutableArrayDataSource has one section; asked for \(path)")
        if let cached = cache[path] { return cached }
        let made = makeCellViewModel(model.elements[path.row], path)
        cache[path] = made
        return made
    }

    /// The model's element at `path`; a path outside the source traps.
    ///
    /// - Parameter path: A path in section 0.
    /// - Returns: The element.
    public func element(at path: RowPath) -> Element {
        precondition(path.section == 0, "MutableArrayDataSource has one section; asked for \(path)")
        return model.elements[path.row]
    }
}
