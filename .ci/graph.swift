// Checks that every target of a package declares exactly the modules its files import (DESIGN.md §5): no dependency
// it never imports, no import it reaches only through another target's dependency. Run by `.ci/graph`, which passes
// the package's folder and what `swift package dump-package` printed for it.
//
// A dependency that is built but not imported is allowed only when it is an executable target, or an executable
// product of a package it depends on (a test runs it as a child process). Modules of the toolchain and the system are
// never declared.

import Foundation

let systemModules: Set<String> = [
    "Foundation", "FoundationEssentials", "Glibc", "Musl", "Dispatch", "CDispatch", "Testing", "Observation", "XCTest",
    "Synchronization",
]
// Products whose modules are named otherwise: swift-distributed-tracing's Instrumentation brings ServiceContextModule.
let productModules: [String: Set<String>] = ["Instrumentation": ["Instrumentation", "ServiceContextModule"]]

let arguments = CommandLine.arguments
guard arguments.count >= 3, let manifest = FileManager.default.contents(atPath: arguments[2]) else {
    print("usage: swift .ci/graph.swift <package folder> <dump-package JSON file> [<dependency's dump-package JSON>…]")
    exit(2)
}
let root = URL(fileURLWithPath: arguments[1])
let package = try JSONSerialization.jsonObject(with: manifest) as! [String: Any]
let targets = package["targets"] as! [[String: Any]]
var executables = Set(targets.filter { $0["type"] as? String == "executable" }.map { $0["name"] as! String })
// The executable products of the packages it depends on (the examples' tests run the root's mainline-console).
for dependency in arguments.dropFirst(3) {
    guard let data = FileManager.default.contents(atPath: dependency),
        let dump = try JSONSerialization.jsonObject(with: data) as? [String: Any],
        let products = dump["products"] as? [[String: Any]]
    else { continue }
    for product in products where (product["type"] as? [String: Any])?["executable"] != nil {
        executables.insert(product["name"] as! String)
    }
}
let importLine = try NSRegularExpression(
    pattern: #"^(?:@testable |@_exported |@preconcurrency )?import ([A-Za-z_][A-Za-z0-9_]*)"#,
    options: .anchorsMatchLines
)

var failures = 0
for target in targets {
    let name = target["name"] as! String
    let type = target["type"] as! String
    guard type != "system" else { continue }
    let path = target["path"] as? String ?? (type == "test" ? "Tests/\(name)" : "Sources/\(name)")
    var imported = Set<String>()
    let folder = root.appendingPathComponent(path)
    let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
        guard file.pathExtension == "swift", let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
        for match in importLine.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            imported.insert(String(text[Range(match.range(at: 1), in: text)!]))
        }
    }
    imported.subtract(systemModules)
    var declared = Set<String>()
    var builtOnly = Set<String>()
    for dependency in target["dependencies"] as! [[String: Any]] {
        guard let (kind, value) = dependency.first, let fields = value as? [Any], let named = fields.first as? String
        else { continue }
        // A target's module is its name with `-` made `_` (`@testable import order_desk` for the target order-desk).
        let modules =
            kind == "product" ? productModules[named] ?? [named] : [named.replacingOccurrences(of: "-", with: "_")]
        if executables.contains(named) && imported.isDisjoint(with: modules) {
            builtOnly.insert(named)
        } else {
            declared.formUnion(modules)
        }
    }
    // A product of several modules counts as imported when one of them is.
    let unused = declared.subtracting(imported).filter { module in
        !productModules.values.contains { $0.contains(module) && !$0.isDisjoint(with: imported) }
    }
    let undeclared = imported.subtracting(declared)
    if !unused.isEmpty {
        print("graph: \(name) declares \(unused.sorted().joined(separator: ", ")) but never imports it")
        failures += 1
    }
    if !undeclared.isEmpty {
        print("graph: \(name) imports \(undeclared.sorted().joined(separator: ", ")) without declaring it")
        failures += 1
    }
}
if failures > 0 { exit(1) }
print("graph: \(arguments[1]): every target declares exactly what it imports")
