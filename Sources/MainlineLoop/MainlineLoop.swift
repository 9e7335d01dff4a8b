// The libuv loops (`MainLoop`, `EventLoop`, the engine under them) on top of the scheduling core: `import MainlineLoop`
// brings in the core's contracts, clock, timers, recorder and snapshots as well (`MainlineLoopCore`), so that code
// written against the loops needs one import. The inspector and the stall watchdog are `MainlineInspection`.

@_exported import MainlineLoopCore
