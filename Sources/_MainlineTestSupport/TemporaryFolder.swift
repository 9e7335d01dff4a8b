import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Makes a new, empty folder of its own under `/tmp` (`mkdtemp`), for a test's Unix domain sockets and files: short
/// enough for a socket path (108 bytes at most), and owned by the test's user only. The caller removes it.
///
/// Not API: `_MainlineTestSupport` serves Mainline's own tests and examples, and may change in any release.
///
/// Thread-safe.
///
/// - Parameter prefix: The start of the folder's name, for whoever reads `/tmp`.
/// - Returns: The folder's path.
public func makeTemporaryFolder(prefix: String) -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}
