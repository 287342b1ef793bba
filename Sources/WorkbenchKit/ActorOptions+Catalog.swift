// Generated from the catalog's actor kinds by ActorOptionsTests (Tests/WorkbenchKitTests); do not edit. When a system's
// options change, WORKBENCH_WRITE_ACTOR_OPTIONS=1 swift test --filter ActorOptionsTests writes it again.

/// The options of `start echo`: demo actor: TCP echo (port 7), HTTP echo (port 80), echo:// URL handler on the bus.
public struct EchoOptions: ActorStartOptions {
    /// The actor kind they are for.
    public static let kind = "echo"
    /// `tcp-port`: TCP echo port (default 7).
    public var tcpPort: Int?
    /// `http-port`: HTTP echo port (default 80).
    public var httpPort: Int?
    /// `scheme`: URL scheme to handle on the bus (default echo; 'none' for no handler).
    public var scheme: String?
    /// `planted-bug`: true: declare the fault points echo.planted-arm and echo.planted-miscount; the second, after the
    /// first, makes echo miscount a body (for testing swarm and shrink).
    public var plantedBug: Bool?

    /// The options of `start echo`: those left nil keep their defaults.
    public init(
        tcpPort: Int? = nil,
        httpPort: Int? = nil,
        scheme: String? = nil,
        plantedBug: Bool? = nil
    ) {
        self.tcpPort = tcpPort
        self.httpPort = httpPort
        self.scheme = scheme
        self.plantedBug = plantedBug
    }

    /// The options given, as the line's `OPTION=VALUE` words.
    public var words: [String: String] {
        let words: [String: String?] = [
            "tcp-port": tcpPort.map { String($0) },
            "http-port": httpPort.map { String($0) },
            "scheme": scheme,
            "planted-bug": plantedBug.map { $0 ? "true" : "false" },
        ]
        return words.compactMapValues { $0 }
    }
}

/// The options of `start mig`: Dispatcher Paragon MiG: IPPS on 8050, plain IPP on 631, Basic accounts, job spool,
/// simulated printer.
public struct MigOptions: ActorStartOptions {
    /// The actor kind they are for.
    public static let kind = "mig"
    /// `tls-port`: IPPS port (default 8050; 'none' for no TLS).
    public var tlsPort: ListenerPort?
    /// `plain-port`: plain IPP port (default 631; 'none' for none).
    public var plainPort: ListenerPort?
    /// `user`: account name (default demo).
    public var user: String?
    /// `password`: account password (default demo-password).
    public var password: String?
    /// `require-certificate`: true: the account needs a client certificate forwarded by a TLS proxy (account
    /// secure/secure-password always does).
    public var requireCertificate: Bool?
    /// `ppm`: printer speed in pages per minute (default 60).
    public var ppm: Int?
    /// `bytes-per-page`: pages of a document MiG does not read whole (a PDF or PostScript beyond what its readers
    /// take): one per this many bytes (default 100000).
    public var bytesPerPage: Int?
    /// `database`: SQLite file of the job spool (default in memory; simulated: on the node's simulated disk, which
    /// crash mig tests).
    public var database: String?
    /// `spool`: directory for document files (default: digests only; simulated: on the node's simulated disk, which
    /// crash mig tests).
    public var spool: String?
    /// `preserve-job-files`: true: keep a document in the spool after its job ended (cupsd's PreserveJobFiles Yes);
    /// default false: it is deleted once the job is completed, canceled or aborted.
    public var preserveJobFiles: Bool?
    /// `max-jobs`: jobs the spool keeps, finished ones included (default 500, as cupsd's MaxJobs; 0: no limit): beyond
    /// it the oldest finished job is forgotten, and a new job is refused with server-error-too-many-jobs while all are
    /// active.
    public var maxJobs: Int?
    /// `sync-to-disk`: true: fsync documents, their directory and commits before answering, so acknowledged jobs
    /// survive a power loss (they always survive kill -9); default false, serve true.
    public var syncToDisk: Bool?
    /// `anonymous-discovery`: true: Get-Printer-Attributes and Validate-Job are answered without credentials (CUPS asks
    /// so while it builds a driverless queue); every job operation still needs an account (default false: 401 without
    /// credentials).
    public var anonymousDiscovery: Bool?
    /// `hold-by-default`: true: a print-release gateway: every job waits (pending-held, job-hold-until-default
    /// indefinite) until Release-Job, and no-hold is not offered (default false).
    public var holdByDefault: Bool?
    /// `proxy-secret`: believe a forwarded SSL_CLIENT_CERT only with this X-MiG-Proxy-Secret (default: never; give
    /// mig-proxy the same secret).
    public var proxySecret: String?

    /// The options of `start mig`: those left nil keep their defaults.
    public init(
        tlsPort: ListenerPort? = nil,
        plainPort: ListenerPort? = nil,
        user: String? = nil,
        password: String? = nil,
        requireCertificate: Bool? = nil,
        ppm: Int? = nil,
        bytesPerPage: Int? = nil,
        database: String? = nil,
        spool: String? = nil,
        preserveJobFiles: Bool? = nil,
        maxJobs: Int? = nil,
        syncToDisk: Bool? = nil,
        anonymousDiscovery: Bool? = nil,
        holdByDefault: Bool? = nil,
        proxySecret: String? = nil
    ) {
        self.tlsPort = tlsPort
        self.plainPort = plainPort
        self.user = user
        self.password = password
        self.requireCertificate = requireCertificate
        self.ppm = ppm
        self.bytesPerPage = bytesPerPage
        self.database = database
        self.spool = spool
        self.preserveJobFiles = preserveJobFiles
        self.maxJobs = maxJobs
        self.syncToDisk = syncToDisk
        self.anonymousDiscovery = anonymousDiscovery
        self.holdByDefault = holdByDefault
        self.proxySecret = proxySecret
    }

    /// The options given, as the line's `OPTION=VALUE` words.
    public var words: [String: String] {
        let words: [String: String?] = [
            "tls-port": tlsPort.map { $0.word },
            "plain-port": plainPort.map { $0.word },
            "user": user,
            "password": password,
            "require-certificate": requireCertificate.map { $0 ? "true" : "false" },
            "ppm": ppm.map { String($0) },
            "bytes-per-page": bytesPerPage.map { String($0) },
            "database": database,
            "spool": spool,
            "preserve-job-files": preserveJobFiles.map { $0 ? "true" : "false" },
            "max-jobs": maxJobs.map { String($0) },
            "sync-to-disk": syncToDisk.map { $0 ? "true" : "false" },
            "anonymous-discovery": anonymousDiscovery.map { $0 ? "true" : "false" },
            "hold-by-default": holdByDefault.map { $0 ? "true" : "false" },
            "proxy-secret": proxySecret,
        ]
        return words.compactMapValues { $0 }
    }
}

/// The options of `start mig-proxy`: TLS proxy in front of MiG like the original deployment's nginx: verifies client
/// certificates, forwards SSL_CLIENT_CERT.
public struct MigProxyOptions: ActorStartOptions {
    /// The actor kind they are for.
    public static let kind = "mig-proxy"
    /// `port`: HTTPS port (default 443).
    public var port: Int?
    /// `upstream`: MiG's plain HTTP endpoint HOST:PORT (default mig:631).
    public var upstream: String?
    /// `secret`: sent upstream as X-MiG-Proxy-Secret: mig's proxy-secret (default none).
    public var secret: String?

    /// The options of `start mig-proxy`: those left nil keep their defaults.
    public init(
        port: Int? = nil,
        upstream: String? = nil,
        secret: String? = nil
    ) {
        self.port = port
        self.upstream = upstream
        self.secret = secret
    }

    /// The options given, as the line's `OPTION=VALUE` words.
    public var words: [String: String] {
        let words: [String: String?] = [
            "port": port.map { String($0) },
            "upstream": upstream,
            "secret": secret,
        ]
        return words.compactMapValues { $0 }
    }
}

/// The options of `start scpms`: SAP Mobile Services: HTTPS device registration (OData Connections), X-SMP-APPCID
/// check, the app's OData service, Basic auth, client logs.
public struct ScpmsOptions: ActorStartOptions {
    /// The actor kind they are for.
    public static let kind = "scpms"
    /// `tls-port`: HTTPS port (default 443; 'none' for no TLS), certificate Fixtures/tls/server.pem.
    public var tlsPort: ListenerPort?
    /// `port`: plain HTTP port (default 80; 'none' for HTTPS only).
    public var port: ListenerPort?
    /// `database`: SQLite file for registrations (default: in memory; simulated: on the node's simulated disk).
    public var database: String?
    /// `app-id`: the demo application id (default com.workbench.demo).
    public var appId: String?
    /// `user`: demo user (default demo).
    public var user: String?
    /// `password`: demo password (default password).
    public var password: String?
    /// `log-upload`: on|off: accept client logs (default on).
    public var logUpload: String?

    /// The options of `start scpms`: those left nil keep their defaults.
    public init(
        tlsPort: ListenerPort? = nil,
        port: ListenerPort? = nil,
        database: String? = nil,
        appId: String? = nil,
        user: String? = nil,
        password: String? = nil,
        logUpload: String? = nil
    ) {
        self.tlsPort = tlsPort
        self.port = port
        self.database = database
        self.appId = appId
        self.user = user
        self.password = password
        self.logUpload = logUpload
    }

    /// The options given, as the line's `OPTION=VALUE` words.
    public var words: [String: String] {
        let words: [String: String?] = [
            "tls-port": tlsPort.map { $0.word },
            "port": port.map { $0.word },
            "database": database,
            "app-id": appId,
            "user": user,
            "password": password,
            "log-upload": logUpload,
        ]
        return words.compactMapValues { $0 }
    }
}

/// The options of `start ivanti`: Ivanti client app: appconnect/appconnectdc schemes on the bus, derived-credential
/// vault, bus gateway (POST /open).
public struct IvantiOptions: ActorStartOptions {
    /// The actor kind they are for.
    public static let kind = "ivanti"
    /// `version`: current (default), old (no derived credentials) or missing (not installed).
    public var version: String?
    /// `database`: SQLite file of the credential vault (absent: in memory); its key goes to FILE.key.
    public var database: String?
    /// `bus-port`: port of the HTTP bus gateway, POST /open with a URL (default 80; 'none' for no gateway).
    public var busPort: ListenerPort?

    /// The options of `start ivanti`: those left nil keep their defaults.
    public init(
        version: String? = nil,
        database: String? = nil,
        busPort: ListenerPort? = nil
    ) {
        self.version = version
        self.database = database
        self.busPort = busPort
    }

    /// The options given, as the line's `OPTION=VALUE` words.
    public var words: [String: String] {
        let words: [String: String?] = [
            "version": version,
            "database": database,
            "bus-port": busPort.map { $0.word },
        ]
        return words.compactMapValues { $0 }
    }
}

/// The options of `start ims-signer`: the host app's back end that signs IMS token prototypes: POST /sign over HTTPS
/// (port 443), POST /admin/users/<id>.
public struct ImsSignerOptions: ActorStartOptions {
    /// The actor kind they are for.
    public static let kind = "ims-signer"
    /// `port`: port (default 443, or 80 with tls=false).
    public var port: Int?
    /// `tls`: true (default): HTTPS with Fixtures/tls/server.pem, as the original example's https://…/sign; false:
    /// plain HTTP.
    public var tls: Bool?
    /// `api-key`: the host API key, every token's iss (default the original example's).
    public var apiKey: String?
    /// `key`: PEM RSA-2048 private key (default Fixtures/ims/host.key).
    public var key: String?
    /// `certificate`: PEM certificate of that key (default Fixtures/ims/host.pem).
    public var certificate: String?
    /// `kid`: key id to put in signed tokens (default none).
    public var kid: String?
    /// `admin-token`: bearer token of the admin endpoint.
    public var adminToken: String?
    /// `enrol`: comma-separated users to enrol at start; their app tokens are shown as notes.
    public var enrol: String?

    /// The options of `start ims-signer`: those left nil keep their defaults.
    public init(
        port: Int? = nil,
        tls: Bool? = nil,
        apiKey: String? = nil,
        key: String? = nil,
        certificate: String? = nil,
        kid: String? = nil,
        adminToken: String? = nil,
        enrol: String? = nil
    ) {
        self.port = port
        self.tls = tls
        self.apiKey = apiKey
        self.key = key
        self.certificate = certificate
        self.kid = kid
        self.adminToken = adminToken
        self.enrol = enrol
    }

    /// The options given, as the line's `OPTION=VALUE` words.
    public var words: [String: String] {
        let words: [String: String?] = [
            "port": port.map { String($0) },
            "tls": tls.map { $0 ? "true" : "false" },
            "api-key": apiKey,
            "key": key,
            "certificate": certificate,
            "kid": kid,
            "admin-token": adminToken,
            "enrol": enrol,
        ]
        return words.compactMapValues { $0 }
    }
}

/// The options of `start ims`: IMS: verifies host-signed tokens and starts sessions (POST /v1/sessions, port 80); admin
/// /admin/hosts/<iss>/….
public struct ImsOptions: ActorStartOptions {
    /// The actor kind they are for.
    public static let kind = "ims"
    /// `port`: HTTP port (default 80).
    public var port: Int?
    /// `database`: SQLite file (default: in memory; simulated: on the node's simulated disk).
    public var database: String?
    /// `leeway`: clock skew tolerated on nbf/exp (default 60s).
    public var leeway: String?
    /// `admin-token`: bearer token of the admin endpoints.
    public var adminToken: String?
    /// `host-certificate`: PEM certificate to register at start (with host-api-key).
    public var hostCertificate: String?
    /// `host-api-key`: iss to register host-certificate for (default the original example's).
    public var hostApiKey: String?
    /// `enrol`: comma-separated users of host-api-key to enrol at start.
    public var enrol: String?

    /// The options of `start ims`: those left nil keep their defaults.
    public init(
        port: Int? = nil,
        database: String? = nil,
        leeway: String? = nil,
        adminToken: String? = nil,
        hostCertificate: String? = nil,
        hostApiKey: String? = nil,
        enrol: String? = nil
    ) {
        self.port = port
        self.database = database
        self.leeway = leeway
        self.adminToken = adminToken
        self.hostCertificate = hostCertificate
        self.hostApiKey = hostApiKey
        self.enrol = enrol
    }

    /// The options given, as the line's `OPTION=VALUE` words.
    public var words: [String: String] {
        let words: [String: String?] = [
            "port": port.map { String($0) },
            "database": database,
            "leeway": leeway,
            "admin-token": adminToken,
            "host-certificate": hostCertificate,
            "host-api-key": hostApiKey,
            "enrol": enrol,
        ]
        return words.compactMapValues { $0 }
    }
}

/// The options of `start sunfire`: NUS SOC Print's SSH print host: exec into its shell, SCP, SFTP, lpd queues (port
/// 22), account directory (8389).
public struct SunfireOptions: ActorStartOptions {
    /// The actor kind they are for.
    public static let kind = "sunfire"
    /// `port`: SSH port (default 22).
    public var port: Int?
    /// `host-key`: OpenSSH ed25519 key file under Fixtures/ (default sunfire/ssh_host_ed25519_key).
    public var hostKey: String?
    /// `whitelist`: comma-separated networks allowed to connect (default 10.0.0.0/8,127.0.0.0/8,::1/128).
    public var whitelist: String?
    /// `max-auth-tries`: password failures before a connection is dropped (default 6).
    public var maxAuthTries: Int?
    /// `printers`: comma-separated printers besides the app's twelve, e.g. psc115.
    public var printers: String?
    /// `ppm`: printing speed in pages per minute (default 30).
    public var ppm: Int?
    /// `disk-quota`: each user's disk quota in bytes (default 200000000).
    public var diskQuota: Int?
    /// `print-quota`: each user's PS-printer quota in sheets (default 100).
    public var printQuota: Int?
    /// `homes`: directory for the users' homes (default: in memory).
    public var homes: String?
    /// `directory-port`: port of the account directory mysoc asks (default 8389; none for none).
    public var directoryPort: ListenerPort?
    /// `directory-token`: bearer token mysoc must present to the directory.
    public var directoryToken: String?

    /// The options of `start sunfire`: those left nil keep their defaults.
    public init(
        port: Int? = nil,
        hostKey: String? = nil,
        whitelist: String? = nil,
        maxAuthTries: Int? = nil,
        printers: String? = nil,
        ppm: Int? = nil,
        diskQuota: Int? = nil,
        printQuota: Int? = nil,
        homes: String? = nil,
        directoryPort: ListenerPort? = nil,
        directoryToken: String? = nil
    ) {
        self.port = port
        self.hostKey = hostKey
        self.whitelist = whitelist
        self.maxAuthTries = maxAuthTries
        self.printers = printers
        self.ppm = ppm
        self.diskQuota = diskQuota
        self.printQuota = printQuota
        self.homes = homes
        self.directoryPort = directoryPort
        self.directoryToken = directoryToken
    }

    /// The options given, as the line's `OPTION=VALUE` words.
    public var words: [String: String] {
        let words: [String: String?] = [
            "port": port.map { String($0) },
            "host-key": hostKey,
            "whitelist": whitelist,
            "max-auth-tries": maxAuthTries.map { String($0) },
            "printers": printers,
            "ppm": ppm.map { String($0) },
            "disk-quota": diskQuota.map { String($0) },
            "print-quota": printQuota.map { String($0) },
            "homes": homes,
            "directory-port": directoryPort.map { $0.word },
            "directory-token": directoryToken,
        ]
        return words.compactMapValues { $0 }
    }
}

/// The options of `start mysoc`: mysoc, the SoC site with the print-quota page: POST /images/LOGIN over HTTPS (port
/// 443), asks sunfire's directory.
public struct MysocOptions: ActorStartOptions {
    /// The actor kind they are for.
    public static let kind = "mysoc"
    /// `port`: HTTPS port (default 443).
    public var port: Int?
    /// `directory`: the account directory HOST:PORT (default sunfire:8389).
    public var directory: String?
    /// `directory-token`: bearer token to present to the directory.
    public var directoryToken: String?

    /// The options of `start mysoc`: those left nil keep their defaults.
    public init(
        port: Int? = nil,
        directory: String? = nil,
        directoryToken: String? = nil
    ) {
        self.port = port
        self.directory = directory
        self.directoryToken = directoryToken
    }

    /// The options given, as the line's `OPTION=VALUE` words.
    public var words: [String: String] {
        let words: [String: String?] = [
            "port": port.map { String($0) },
            "directory": directory,
            "directory-token": directoryToken,
        ]
        return words.compactMapValues { $0 }
    }
}

/// The options of `start stub`: a recording (workbench record --out DIR) played back: each request gets the recorded
/// answer that matches it.
public struct StubOptions: ActorStartOptions {
    /// The actor kind they are for.
    public static let kind = "stub"
    /// `from`: the recording to play back: a folder `workbench record --out` made (required) (required).
    public var from: String
    /// `port`: HTTP port (default 80, with tls=true 443; 0 live: a free one).
    public var port: Int?
    /// `tls`: true: HTTPS with the workbench's test certificate (Fixtures/tls/server.pem, trusted with
    /// Fixtures/tls/ca.pem); default false.
    public var tls: Bool?
    /// `match-headers`: headers a request is also matched on, comma-separated (default: method and target only).
    public var matchHeaders: String?
    /// `match-json`: JSON body fields a request is also matched on, by path (DeviceType,d.UserName), comma-separated.
    public var matchJson: String?
    /// `match-ipp`: IPP attributes an IPP request is also matched on (job-id,document-format); its operation always is.
    public var matchIpp: String?

    /// The options of `start stub`: those left nil keep their defaults.
    public init(
        from: String,
        port: Int? = nil,
        tls: Bool? = nil,
        matchHeaders: String? = nil,
        matchJson: String? = nil,
        matchIpp: String? = nil
    ) {
        self.from = from
        self.port = port
        self.tls = tls
        self.matchHeaders = matchHeaders
        self.matchJson = matchJson
        self.matchIpp = matchIpp
    }

    /// The options given, as the line's `OPTION=VALUE` words.
    public var words: [String: String] {
        let words: [String: String?] = [
            "from": from,
            "port": port.map { String($0) },
            "tls": tls.map { $0 ? "true" : "false" },
            "match-headers": matchHeaders,
            "match-json": matchJson,
            "match-ipp": matchIpp,
        ]
        return words.compactMapValues { $0 }
    }
}
