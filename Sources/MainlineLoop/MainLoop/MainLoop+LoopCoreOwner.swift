import MainlineLoopCore

// The core's instrumentation (drop sources of upper layers, `mainline_mailbox_drops`) is reached through the core.
extension MainLoop: _LoopCoreOwner {}
