// mainline-console — attaches to a process's loop inspector (`LoopInspector`, a Unix domain socket) and shows, live in
// the terminal, what its loops are doing: iterations per second and busy time, the loop-delay histogram, the slowest
// recent jobs by site, mailboxes, view models and coordinators, timers and the last stalls.
//
//     mainline-console /tmp/app.sock                         live: keys 1-7 switch views, f freezes, q quits
//     mainline-console --once --json /tmp/app.sock           one snapshot document (the inspector's JSON), for scripts
//     mainline-console --once /tmp/app.sock                  every view once, as plain text
//     mainline-console --dump recorder.json /tmp/app.sock    the flight recorders, for a bug report
//
// Exit status: 0; 1 when it cannot attach, is refused or gets an answer it cannot read (one line on standard error
// says which); 64 for a bad command line; 130 or 143 after SIGINT or SIGTERM in the live view.

import Foundation

exit(Console.main(CommandLine.arguments))
