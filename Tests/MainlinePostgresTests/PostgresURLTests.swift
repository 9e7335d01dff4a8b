#if Postgres
import MainlinePostgres
import PostgresNIO
import Testing

/// One connection URL gives both postgres-nio configurations; a URL that cannot be used says what is wrong.
@Suite("PostgresURL")
struct PostgresURLTests {
    @Test func aFullURLGivesEveryPartDecoded() throws {
        let url = try PostgresURL(
            "postgresql://app%40x:p%2Fss@db.internal:6543/orders%20db?sslmode=verify-full&application_name=orders"
        )
        #expect(url.user == "app@x")
        #expect(url.password == "p/ss")
        #expect(url.host == "db.internal")
        #expect(url.port == 6543)
        #expect(url.database == "orders db")
        #expect(url.sslMode == .verifyFull)
        #expect(url.applicationName == "orders")
        // What to log: never the password.
        #expect(!url.description.contains("p/ss") && !url.description.contains("p%2Fss"))
        #expect(url.description.contains("postgres://app@x:***@db.internal:6543/orders db?sslmode=verify-full"))
    }

    @Test func theDefaultsAreLibpqs() throws {
        let url = try PostgresURL("postgres://me@127.0.0.1/db")
        #expect(url.port == 5432)
        #expect(url.password == nil)
        #expect(url.sslMode == .prefer)
        #expect(url.applicationName == nil)
    }

    @Test func bothConfigurationsCarryTheSameDatabase() throws {
        let url = try PostgresURL("postgres://me:secret@127.0.0.1:7000/db?sslmode=disable")
        let pool = try url.clientConfiguration(applicationName: "pool")
        #expect(pool.host == "127.0.0.1" && pool.port == 7000)
        #expect(pool.username == "me" && pool.password == "secret" && pool.database == "db")
        #expect(pool.options.additionalStartupParameters.map { $0.1 } == ["pool"])
        let single = try url.connectionConfiguration()
        #expect(single.host == "127.0.0.1" && single.port == 7000)
        #expect(single.username == "me" && single.password == "secret" && single.database == "db")
        // TLS modes other than disable make their configurations too (verified when connecting).
        for mode in ["prefer", "require", "verify-ca", "verify-full"] {
            let tls = try PostgresURL("postgres://me@127.0.0.1/db?sslmode=\(mode)")
            _ = try tls.clientConfiguration()
            _ = try tls.connectionConfiguration()
        }
    }

    @Test(arguments: [
        ("postgres://me@127.0.0.1:5x/db", PostgresURL.Invalid.notAURL),
        ("mysql://me@127.0.0.1/db", .unsupportedScheme("mysql")),
        ("postgres://127.0.0.1/db", .missingUser),
        ("postgres://me@/db", .missingHost),
        ("postgres://me@127.0.0.1:5432", .missingDatabase),
        ("postgres://me@127.0.0.1/db/more", .missingDatabase),
        ("postgres://me@127.0.0.1:0/db", .portOutOfRange(0)),
        ("postgres://me@127.0.0.1/db?sslmode=allow", .unsupportedSSLMode("allow")),
        ("postgres://me@127.0.0.1/db?connect_timeout=3", .unsupportedParameter("connect_timeout")),
        ("postgres://me@127.0.0.1/db#x", .fragment),
    ])
    func aURLThatCannotBeUsedIsRefusedNamingWhatIsWrong(text: String, expected: PostgresURL.Invalid) {
        #expect(throws: expected) { try PostgresURL(text) }
    }

    @Test func anUnreadableRootCertificateIsRefusedWhenTheConfigurationIsMade() throws {
        let url = try PostgresURL("postgres://me@127.0.0.1/db?sslmode=verify-ca&sslrootcert=/nonexistent/root.pem")
        #expect(throws: PostgresURL.Invalid.tlsConfiguration(#"sslrootcert "/nonexistent/root.pem" cannot be read"#)) {
            try url.connectionConfiguration()
        }
        #expect(throws: PostgresURL.Invalid.self) { try url.clientConfiguration() }
    }

    @Test func anErrorNeverHoldsThePassword() {
        do {
            _ = try PostgresURL("postgres://me:hunter2@127.0.0.1/db?sslmode=bogus")
            Issue.record("a bad sslmode was accepted")
        } catch {
            #expect(!"\(error)".contains("hunter2"))
            #expect("\(error)".contains(#"sslmode "bogus" is not supported"#))
        }
    }
}
#endif
