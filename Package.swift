// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Workbench",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "workbench", targets: ["workbench"]),
        .library(name: "Wire", targets: ["Wire"]),
        .library(name: "Kernel", targets: ["Kernel"]),
        .library(name: "IPP", targets: ["IPP"]),
        // The workbench in a team's own test suite (docs/library.md): a simulated world from a seed, actors, faults,
        // scenario lines and the team's own code on a Node; the swift-testing helpers; the client modules an app ships.
        .library(name: "WorkbenchKit", targets: ["WorkbenchKit"]),
        .library(name: "WorkbenchTesting", targets: ["WorkbenchTesting"]),
        .library(name: "NodeHTTP", targets: ["NodeHTTP"]),
        .library(name: "MiGClient", targets: ["MiGClient"]),
        .library(name: "SCPmsClient", targets: ["SCPmsClient"]),
        .library(name: "IMSSDK", targets: ["IMSSDK"]),
        .library(name: "AppConnect", targets: ["AppConnect"]),
        .library(name: "SOCPrint", targets: ["SOCPrint"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssh.git", .upToNextMinor(from: "0.15.1")),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
    ],
    targets: [
        // The seam between the two wirings: what actors and clients see of a network, a clock and randomness.
        .target(
            name: "Wire",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // JSON string literals (RFC 8259 escaping): the one escaper of every module that writes JSON by hand.
        .target(name: "JSONEscaping"),
        // XML/HTML text (`&amp;`, `&lt;`…): the one escaper of every module that writes markup by hand.
        .target(name: "MarkupEscaping"),
        // RFC 3986 percent-encoding, strict decoding: the one codec of bus URLs, the SOC Print inbox URL, SCPms paths.
        .target(name: "PercentEncoding"),
        // Base64url, strict, padding forbidden or optional by the caller's choice: JWTs and bus URLs.
        .target(name: "Base64URLEncoding"),
        // Days since 1970 to a UTC calendar date: the one calendar of IPP dateTime, SFTP `ls -l` lines and OData ETags.
        .target(name: "CivilDate"),
        // Flame graphs from `perf script` output, drawn as self-contained SVG: what `bench … --flamegraph` writes
        // (Debian 12 packages no flame-graph tool).
        .target(name: "FlameGraph", dependencies: ["MarkupEscaping"]),
        // A node's disk under simulation: files with a page cache that fsync makes durable; a crash loses or tears (at
        // sector granularity, by a seeded choice) what was not synced; write, read and fsync-lie fault points.
        .target(name: "SimulatedDisk", dependencies: ["Wire"]),
        // The deterministic simulation: virtual time, seeded randomness, the simulated byte-stream network,
        // the URL-scheme bus, fault points, the nodes' disks and the trace.
        .target(
            name: "Kernel",
            dependencies: [
                "Wire", "JSONEscaping", "SimulatedDisk",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // OpenSSL's libcrypto (libssl-dev): the JWT core reads and checks PEM keys and X.509 certificates with it;
        // `bench jwt` measures its RSA next to swift-crypto's, which the core signs and verifies with.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // SQLite that never blocks an event loop: live, a WAL pool (synchronous = FULL) with reads on the thread pool and
        // writes group-committed (one fsync for the writes that arrive together); under simulation, inline in call order.
        .target(
            name: "DurableStore",
            dependencies: [
                "Wire", "PercentEncoding",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the WAL hook that moves checkpoints off the commits.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // Pure JWT core for IMS: compact JWS (on the shared base64url), strict claims, RS256 (signing on OpenSSL, verifying on swift-crypto),
        // X.509 host certificates (OpenSSL).
        .target(
            name: "JWT",
            dependencies: [
                "COpenSSL", "Base64URLEncoding",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        // The host app's signing back end for IMS tokens (POST /sign), an actor.
        .target(
            name: "IMSSigningBackend",
            dependencies: [
                "JWT", "Base64URLEncoding", "Wire", "WireHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // IMS's verifier: registered host certificates, enrolled users, replay cache (SQLite), sessions; an actor.
        .target(
            name: "IMSVerifier",
            dependencies: [
                "JWT", "Wire", "WireHTTP", "JSONEscaping", "DurableStore", "Base64URLEncoding",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The IMS SDK a host app embeds (client): TokenSigner, the URL signer, prototypes, sessions and refresh.
        .target(
            name: "IMSSDK",
            dependencies: [
                "JWT", "Wire", "WireHTTP", "URLSessionHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // Pure IPP codec (RFC 8010/8011): no I/O, no clock.
        // Lifetimes: the non-escapable value spans (IPPValueSpan.swift) declare what they borrow from.
        .target(name: "IPP", swiftSettings: [.enableExperimentalFeature("Lifetimes")]),
        // A small demo actor (TCP echo and an HTTP echo) that shows the kernel before real actors exist.
        .target(
            name: "EchoServer",
            dependencies: [
                "Wire", "WireHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // A minimal HTTP/1.1 client over a node's network, for scenarios and simple app clients, and the HTTP server
        // parts actors share (with the 400 answers to bytes that are no request, plain HTTP on a TLS port included).
        .target(
            name: "WireHTTP",
            dependencies: [
                "Wire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // Foundation's URLSession as an HTTPTransport (FoundationNetworking, on libcurl on Linux: Debian's libcurl4): the
        // live wire's second HTTP stack for the app clients, beside WireHTTP's NIO client. docs/urlsession.md has its limits.
        .target(
            name: "URLSessionHTTP",
            dependencies: [
                "WireHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // HTTP for an app team's own code, in URLSession's shape: HTTPDataLoading (`data(for: URLRequest)`), which
        // URLSession satisfies, and NodeURLSession, which sends over a Node with WireHTTP's client (simulated or live);
        // and NodeHTTPServer, the team's own server on a Node, WireHTTP's server with a small async face.
        // A target of its own: URLRequest and URLResponse are FoundationNetworking's on Linux (libcurl), which WireHTTP,
        // under every actor and the scenario engine, keeps out.
        .target(
            name: "NodeHTTP",
            dependencies: [
                "Wire", "WireHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // The system zlib: gzip print documents (MiG inflates, the client deflates).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The MiG print gateway as an actor: IPP/IPPS over HTTP, accounts, job spool, simulated printer.
        .target(
            name: "MiGServer",
            dependencies: [
                "IPP", "Wire", "WireHTTP", "CZlib", "PrintDocuments", "DurableStore", "CivilDate",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "X509", package: "swift-certificates"),
            ]),
        // A TLS-terminating proxy that verifies client certificates and forwards them (the original deployment's nginx).
        .target(
            name: "TLSProxy",
            dependencies: [
                "Wire", "WireHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // The MiG print client an app ships: IPP over HTTP(S) to Dispatcher Paragon's Mobile Integration Gateway
        // (or any IPP Everywhere printer), streaming documents, Basic auth, PKCS#12 client certificates, retries.
        .target(
            name: "MiGClient",
            dependencies: [
                "IPP", "Wire", "WireHTTP", "CZlib", "PrintDocuments",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // The scenario language: parser and runner.
        .target(
            name: "Scenario",
            dependencies: [
                "Wire", "Kernel", "WireHTTP", "IPP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // Swarm testing over the scenario language: seed ranges and shards, seed-drawn fault schedules within
        // SwarmOptions, results merged and reported, failing seeds shrunk by delta debugging. Names no system: the
        // caller's ScenarioRunner brings the language, actors and invariants.
        .target(name: "Swarm", dependencies: ["Scenario", "Kernel", "Wire", "MarkupEscaping"]),
        // Interactive line editing for the console: history, completion, raw terminal.
        .target(name: "LineEditor"),
        // Ivanti AppConnect derived credentials: the pure core shared by the app side and the Ivanti client
        // (payload, limits, sealing, the URLs on the bus)…
        .target(
            name: "DerivedCredential",
            dependencies: [
                "PercentEncoding", "Base64URLEncoding",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // …the simulated Ivanti client app (validates and vaults credentials)…
        .target(
            name: "IvantiClient",
            dependencies: [
                "DerivedCredential", "Wire", "WireHTTP", "DurableStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // …and the AppConnect library an app links (talks to the Ivanti client only through bus URLs).
        .target(
            name: "AppConnect",
            dependencies: [
                "DerivedCredential", "Wire",
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        // SAP Mobile Services: the pure OData/registration/client-log core, the registration endpoint actor
        // (registrations in SQLite, passwords as PBKDF2-HMAC-SHA256) and the app's session manager (never imports the actor).
        .target(name: "SCPms", dependencies: ["JSONEscaping", "PercentEncoding", "CivilDate"]),
        .target(
            name: "SCPmsServer",
            dependencies: [
                "SCPms", "Wire", "WireHTTP", "DurableStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .target(
            name: "SCPmsClient",
            dependencies: [
                "SCPms", "Wire", "WireHTTP", "URLSessionHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // Pure SFTP version 3 codec (draft-ietf-secsh-filexfer-02): every packet both ways, attributes, limits; no I/O.
        .target(name: "SFTP", dependencies: ["CivilDate"]),
        // Documents that behave like real ones, and the print host's converters emulated on them: PDF, PostScript
        // with DSC comments, DOCX/PPTX/ODT (ZIP through the system zlib), stand-in jars.
        .target(name: "PrintDocuments", dependencies: ["CZlib", "MarkupEscaping"]),
        // The Unix host behind Sunfire's SSH, without the SSH: home file systems with quotas, the shell and its
        // commands, the lpd spooler. md5 comes from OpenSSL's libcrypto.
        .target(name: "SunfireHost", dependencies: ["PrintDocuments", "COpenSSL"]),
        // Sunfire, the SSH print host of NUS SOC Print, as an actor: SSH (password auth, address whitelist), exec
        // into the host's shell, SCP and an SFTP v3 subsystem over the same home file systems. OpenSSL's AES-CTR
        // for the transport libssh2 clients need.
        .target(
            name: "Sunfire",
            dependencies: [
                "SFTP", "SunfireHost", "Wire", "WireHTTP", "COpenSSL",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSH", package: "swift-nio-ssh"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // mysoc, the SoC web site whose quota page the app reads (HTTPS), as an actor.
        .target(
            name: "MySoc",
            dependencies: [
                "Wire", "WireHTTP", "MarkupEscaping",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // The NUS SOC Print app's logic as a client module an app developer would ship (never imports an actor):
        // SSH connectivity with SCP or SFTP uploads, the print flow and its progress, status, delete, quota, settings.
        .target(
            name: "SOCPrint",
            dependencies: [
                "SFTP", "Wire", "WireHTTP", "PercentEncoding",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSH", package: "swift-nio-ssh"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // What a run leaves for people and CI: the timeline page (its CSS and script are files here, embedded at build
        // time) and the JUnit report.
        .target(
            name: "Reports", dependencies: ["Scenario", "Kernel", "Wire", "JSONEscaping", "MarkupEscaping"],
            resources: [.embedInCode("timeline.css"), .embedInCode("timeline.js")]),
        // What a system under Sources/Systems/ builds its face in the `workbench` command from: the WorkbenchSystem
        // it declares, actor options and their parsers, Fixtures/ paths, the benches' and the load's harness, the one
        // message-only error. It names no system.
        .target(
            name: "SystemKit",
            dependencies: [
                "Scenario", "Kernel", "Wire", "Reports", "Swarm", "JSONEscaping", "FlameGraph",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Recorded traffic (`workbench record`): the folder of exchanges, their headers, JSON fields and IPP attributes,
        // read by `diff` and `--to-scenario` and played back by the stub.
        .target(name: "Recordings", dependencies: ["SystemKit", "IPP"]),
        // One target per system: its actors, directives, invariants, reach points, benches and planted bugs. A system
        // depends on SystemKit and its own servers and clients, never on another system (SystemSeamTests checks this
        // manifest), so an edit to one recompiles one.
        .target(
            name: "EchoSystem",
            dependencies: [
                "SystemKit", "Scenario", "Kernel", "Wire", "WireHTTP", "EchoServer", "Reports",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Systems/Echo"),
        .target(
            name: "MiGSystem",
            dependencies: [
                "SystemKit", "Scenario", "Kernel", "Wire", "WireHTTP", "Swarm", "Reports", "IPP", "MiGServer", "MiGClient",
                "TLSProxy", "PrintDocuments", "DerivedCredential", "JSONEscaping",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/Systems/MiG"),
        .target(
            name: "SCPmsSystem",
            dependencies: [
                "SystemKit", "Scenario", "Kernel", "Wire", "WireHTTP", "Swarm", "SCPms", "SCPmsServer", "SCPmsClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Systems/SCPms"),
        .target(
            name: "IvantiSystem",
            dependencies: [
                "SystemKit", "Scenario", "Kernel", "Wire", "WireHTTP", "Swarm", "DerivedCredential", "IvantiClient", "AppConnect",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Systems/Ivanti"),
        .target(
            name: "IMSSystem",
            dependencies: [
                "SystemKit", "Scenario", "Kernel", "Wire", "WireHTTP", "Swarm", "JWT", "IMSSigningBackend", "IMSVerifier", "IMSSDK",
                "PercentEncoding", "JSONEscaping", "COpenSSL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/Systems/IMS"),
        .target(
            name: "SunfireSystem",
            dependencies: [
                "SystemKit", "Scenario", "Kernel", "Wire", "Swarm", "Reports", "Sunfire", "SunfireHost", "MySoc", "SOCPrint",
                "PrintDocuments",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Systems/Sunfire"),
        .target(
            name: "StubSystem",
            dependencies: [
                "SystemKit", "Recordings", "Scenario", "Wire", "WireHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/Systems/Stub"),
        // The `workbench` command: console, run, serve, record, bench, swarm, and the Catalog of the systems above.
        .target(
            name: "Workbench",
            dependencies: [
                "SystemKit", "Recordings", "EchoSystem", "MiGSystem", "SCPmsSystem", "IvantiSystem", "IMSSystem", "SunfireSystem",
                "StubSystem", "Wire", "Kernel", "Scenario", "LineEditor", "IPP", "WireHTTP", "JSONEscaping", "MarkupEscaping",
                "Reports", "Swarm", "FlameGraph",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // A simulated world for a team's own tests, over the scenario engine and the catalog of the `workbench` command:
        // start actors, change the world with typed calls or scenario lines, run the team's code on a Node, read the
        // failures, the trace and the digest (docs/library.md).
        .target(name: "WorkbenchKit", dependencies: ["Workbench", "Scenario", "Kernel", "Wire"]),
        // swift-testing over WorkbenchKit: a body swarmed over seeds in parallel, each failing seed reported once with
        // the command that replays it.
        .target(name: "WorkbenchTesting", dependencies: ["WorkbenchKit", "Wire"]),
        // The command links jemalloc (Debian's libjemalloc): glibc's malloc kept the peak of a long `serve` run's
        // in-flight buffers in its thread arenas, and the 10-minute soak's RSS crept 3.4 MiB after the first minute;
        // with jemalloc it stayed within 0.6 MiB, at less CPU per operation (README, "Load").
        .executableTarget(
            name: "workbench",
            dependencies: [
                "Workbench", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [.linkedLibrary("jemalloc")]),

        // libFuzzer harnesses, one executable per parser (tools/fuzz-*.sh build them with -sanitize=fuzzer into their own
        // scratch path); a plain build makes them replayers of saved inputs, so they always compile.
        .target(name: "FuzzReplay", path: "Fuzz/FuzzReplay"),
        .executableTarget(name: "IPPFuzz", dependencies: ["IPP", "FuzzReplay"], path: "Fuzz/IPPFuzz"),
        .executableTarget(name: "IvantiFuzz", dependencies: ["DerivedCredential", "Base64URLEncoding", "FuzzReplay"], path: "Fuzz/IvantiFuzz"),
        .executableTarget(name: "JWTFuzz", dependencies: ["JWT", "Base64URLEncoding", "FuzzReplay"], path: "Fuzz/JWTFuzz"),
        .executableTarget(name: "SCPmsFuzz", dependencies: ["SCPms", "FuzzReplay"], path: "Fuzz/SCPmsFuzz"),
        .executableTarget(name: "SFTPFuzz", dependencies: ["SFTP", "FuzzReplay"], path: "Fuzz/SFTPFuzz"),
        .executableTarget(name: "ShellFuzz", dependencies: ["SunfireHost", "FuzzReplay"], path: "Fuzz/ShellFuzz"),
        .executableTarget(name: "UnfoldFuzz", dependencies: ["MiGServer", "FuzzReplay"], path: "Fuzz/UnfoldFuzz"),

        // What several test targets share: running real programs and `workbench serve` under watchdogs, free
        // ports, repository paths, wall-clock deadlines for live-wire waits, raw bytes to an actor on either wire.
        .target(name: "TestSupport", dependencies: ["Wire", .product(name: "NIOCore", package: "swift-nio")], path: "Tests/TestSupport"),

        // Examples/PrintDesk, an app team's package that uses the workbench by path, compiled here too from its own
        // folders (importing only the public products, never @testable), so `swift test` runs its tests without a
        // second build of the whole package; docs/library.md says why.
        .target(name: "PrintDesk", dependencies: ["MiGClient", "Wire", "NodeHTTP"], path: "Examples/PrintDesk/Sources/PrintDesk"),
        .testTarget(
            name: "PrintDeskTests", dependencies: ["PrintDesk", "MiGClient", "NodeHTTP", "WorkbenchKit", "WorkbenchTesting"],
            path: "Examples/PrintDesk/Tests/PrintDeskTests"),
        // Workbench and Scenario: the catalog that ActorOptions+Catalog.swift is generated from.
        .testTarget(name: "WorkbenchKitTests", dependencies: ["WorkbenchKit", "WorkbenchTesting", "TestSupport", "Workbench", "Scenario"]),
        // NodeURLSession in a simulated world (SCPms and echo actors, faults) and, beside URLSession, on the live wire;
        // NodeHTTPServer the same two ways.
        .testTarget(
            name: "NodeHTTPTests",
            dependencies: ["NodeHTTP", "WorkbenchKit", "SCPmsServer", "Wire", "TestSupport"]),

        .testTarget(name: "JSONEscapingTests", dependencies: ["JSONEscaping"]),
        .testTarget(name: "SimulatedDiskTests", dependencies: ["SimulatedDisk", "Wire"]),
        .testTarget(name: "CivilDateTests", dependencies: ["CivilDate"]),
        .testTarget(
            name: "DurableStoreTests",
            dependencies: [
                "DurableStore", "Kernel", "SimulatedDisk", "Wire", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(name: "MarkupEscapingTests", dependencies: ["MarkupEscaping"]),
        .testTarget(name: "FlameGraphTests", dependencies: ["FlameGraph"]),
        .testTarget(name: "PercentEncodingTests", dependencies: ["PercentEncoding"]),
        .testTarget(name: "Base64URLEncodingTests", dependencies: ["Base64URLEncoding"]),
        .testTarget(name: "SFTPTests", dependencies: ["SFTP"]),
        .testTarget(name: "PrintDocumentsTests", dependencies: ["PrintDocuments", "TestSupport"]),
        .testTarget(name: "SunfireHostTests", dependencies: ["SunfireHost", "PrintDocuments"]),
        .testTarget(
            name: "SunfireTests",
            dependencies: [
                "Sunfire", "SunfireHost", "SFTP", "PrintDocuments", "MySoc", "SOCPrint", "Kernel", "Wire", "WireHTTP", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "WireTests",
            dependencies: [
                "Wire", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]),
        .testTarget(
            name: "KernelTests",
            dependencies: [
                "Kernel", "Wire", "WireHTTP", "EchoServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSH", package: "swift-nio-ssh"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(name: "IPPTests", dependencies: ["IPP", "TestSupport"]),
        .testTarget(
            name: "MiGServerTests",
            dependencies: [
                "MiGServer", "TLSProxy", "MiGClient", "IPP", "Kernel", "PrintDocuments", "Wire", "WireHTTP", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .testTarget(
            name: "JWTTests",
            dependencies: [
                "JWT", "Base64URLEncoding", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "IMSTests",
            dependencies: [
                "JWT", "Base64URLEncoding", "IMSSigningBackend", "IMSVerifier", "IMSSDK", "Kernel", "Wire", "WireHTTP", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .testTarget(
            name: "EchoServerTests",
            dependencies: [
                "EchoServer", "Kernel", "Wire", "WireHTTP", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(name: "ScenarioTests", dependencies: ["Scenario", "Kernel", "EchoServer", "Wire"]),
        .testTarget(name: "SwarmTests", dependencies: ["Swarm", "Scenario", "Kernel", "Wire"]),
        .testTarget(name: "LineEditorTests", dependencies: ["LineEditor"]),
        .testTarget(
            name: "MiGClientTests",
            dependencies: [
                "MiGClient", "IPP", "Kernel", "PrintDocuments", "Wire", "WireHTTP", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "TestSupport", "CZlib"]),
        .testTarget(
            name: "WorkbenchTests",
            dependencies: [
                "Workbench", "SystemKit", "Recordings", "EchoSystem", "MiGSystem", "SCPmsSystem", "IvantiSystem", "IMSSystem",
                "SunfireSystem", "StubSystem", "Swarm", "JWT", "MiGServer", "SOCPrint", "PrintDocuments", "Wire", "WireHTTP",
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(name: "DerivedCredentialTests", dependencies: ["DerivedCredential", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "IvantiClientTests",
            dependencies: [
                "IvantiClient", "DerivedCredential", "Kernel", "Wire", "WireHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(name: "AppConnectTests", dependencies: ["AppConnect", "IvantiClient", "DerivedCredential", "Kernel", "Wire", "TestSupport"]),
        .testTarget(name: "SCPmsTests", dependencies: ["SCPms"]),
        .testTarget(
            name: "SCPmsServerTests",
            dependencies: [
                "SCPmsServer", "SCPms", "Kernel", "Wire", "WireHTTP", "JSONEscaping", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(
            name: "SCPmsClientTests",
            dependencies: [
                "SCPmsClient", "SCPmsServer", "SCPms", "Kernel", "Wire", "WireHTTP", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The URLSession transport and the SCPms and IMS clients through it, against the served actors on loopback.
        .testTarget(
            name: "URLSessionHTTPTests",
            dependencies: [
                "URLSessionHTTP", "SCPmsClient", "SCPmsServer", "SCPms", "IMSSDK", "IMSSigningBackend", "IMSVerifier", "JWT", "Wire",
                "WireHTTP", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
    ]
)
