// The umbrella module: `import Mainline` brings in every layer of the package.
// It grows as layers land (DESIGN.md §5); each layer can also be imported on its own.

@_exported import MainlineBindings
@_exported import MainlineCoordinators
@_exported import MainlineEvents
@_exported import MainlineInspection
@_exported import MainlineLoop
@_exported import MainlineLoopCore
@_exported import MainlineObservables
@_exported import MainlineViewModels
