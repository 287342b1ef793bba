import IPP
import NIOCore
import NIOHTTP1
import NIOSSL
import Wire

/// Requests, connections and retries: one IPP exchange per connection, repeated as the retry policy says.
extension MiGClient {
    // MARK: Requests and retries

    struct Outcome {
        let message: IPPMessage
        let attempts: Int
        let documentBytesSent: Int64
    }

    /// Sends an IPP request (built afresh per attempt with a new request-id), retrying as the policy says. Requests
    /// without a document go with Content-Length and no 100-continue: they are small.
    func perform(
        document: Document? = nil, documentSize: Int64? = nil,
        options: PrintOptions = PrintOptions(framing: .contentLength, expectContinue: false),
        progress: PrintProgress? = nil, timeLimit: TimeAmount? = nil, _ build: (Int32) -> IPPMessage
    ) async throws(MiGError) -> Outcome {
        let policy = configuration.retry
        let deadline = timeLimit.map { node.clock.now.uptime + .nanoseconds($0.nanoseconds) }
        var attempt = 0
        var answeredBusy = false
        while true {
            attempt += 1
            var remaining: TimeAmount?
            if let deadline {
                let left = deadline - node.clock.now.uptime
                guard left > .zero else { throw .timedOut("the time allowed for the request ran out") }
                remaining = .nanoseconds(left.nanosecondsValue)
            }
            let requestID = nextRequestID()
            let message = build(requestID)
            let prefix: [UInt8]
            do {
                prefix = try message.encoded()
            } catch {
                throw .invalidConfiguration("the \(message.operation) request cannot be encoded: \(error.message)")
            }
            var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: configuration.endpoint.path)
            addCommonHeaders(to: &head.headers)
            head.headers.add(name: "Content-Type", value: "application/ipp")
            if options.expectContinue { head.headers.add(name: "Expect", value: "100-continue") }
            switch options.framing {
            case .chunked: head.headers.add(name: "Transfer-Encoding", value: "chunked")
            case .contentLength: head.headers.add(name: "Content-Length", value: "\(Int64(prefix.count) + (documentSize ?? 0))")
            }
            node.trace(
                "mig-client-request",
                [
                    ("attempt", "\(attempt)"), ("operation", "\(message.operation)"),
                    ("request-id", "\(message.requestID)"),
                ])
            let request = OutgoingRequest(
                head: head, prefix: ByteBuffer(bytes: prefix), document: document, documentSize: documentSize,
                compression: options.compression, expectContinue: options.expectContinue, progress: progress, maxResponseBytes: Self.maxResponseBytes,
                operation: "\(message.operation)")

            let failure: MiGError
            switch await exchange(request, timeLimit: remaining) {
            case .success(let response):
                do {
                    let answer = try interpret(response, requestID: message.requestID)
                    node.trace("mig-client-response", [("http", "\(response.head.status.code)"), ("ipp", "\(answer.status)")])
                    if answer.status == .busy {
                        answeredBusy = true
                        failure = .ipp(status: .busy, message: answer.statusMessage)
                    } else {
                        return Outcome(message: answer, attempts: attempt, documentBytesSent: response.documentBytesSent)
                    }
                } catch {
                    node.trace("mig-client-response", [("http", "\(response.head.status.code)")])
                    failure = error
                }
            case .failure(let error):
                failure = error
            }
            guard failure.isRetryable || repeatsLostAnswer(failure, answeredBusyBefore: answeredBusy) else {
                if case .answerLost = failure {
                    // The safe choice made visible: the request changes the spool, so it is not sent again.
                    node.trace("mig-client-not-repeated", [("attempt", "\(attempt)"), ("operation", "\(message.operation)")])
                }
                throw failure
            }
            guard attempt < policy.maxAttempts else {
                throw attempt == 1 ? failure : .retriesExhausted(attempts: attempt, last: failure)
            }
            let delay = backoff(afterAttempt: attempt)
            node.trace(
                "mig-client-retry",
                [
                    ("after-attempt", "\(attempt)"), ("reason", failure.traceReason),
                    ("wait", Duration.nanoseconds(delay.nanoseconds).workbenchText),
                ])
            await sleep(delay)
        }
    }

    /// Whether a request that is unsafe to repeat (a print, which MiG may have queued already) is sent again after its
    /// answer was lost: never, unless the answer policy says so.
    private func repeatsLostAnswer(_ failure: MiGError, answeredBusyBefore: Bool) -> Bool {
        guard case .answerLost = failure else { return false }
        return configuration.answers.repeatsUnansweredChange(answeredBusyBefore)
    }

    /// Opens a connection, runs one exchange on it and maps every failure to a `MiGError`; with `timeLimit`, the
    /// whole exchange may not take longer than that.
    func exchange(_ request: OutgoingRequest, timeLimit: TimeAmount? = nil) async -> Result<IncomingResponse, MiGError> {
        let endpoint = configuration.endpoint
        let promise = node.eventLoop.makePromise(of: IncomingResponse.self)
        let tlsContext = self.tlsContext
        let serverName = configuration.serverName ?? (endpoint.hostIsIPAddress ? nil : endpoint.host)
        var limited = configuration.timeouts
        if let timeLimit {
            limited.connect = min(limited.connect, timeLimit)
            limited.total = min(limited.total ?? timeLimit, timeLimit)
        }
        let timeouts = limited
        do {
            _ = try await node.connect(host: endpoint.host, port: endpoint.port, timeout: timeouts.connect) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tlsContext {
                        try pipeline.addHandler(NIOSSLClientHandler(context: tlsContext, serverHostname: serverName))
                    }
                    try pipeline.addHandler(HTTPRequestEncoder())
                    try pipeline.addHandler(
                        ByteToMessageHandler(
                            HTTPResponseDecoder(
                                leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .forward)))
                    try pipeline.addHandler(
                        ExchangeHandler(
                            request: request, timeouts: timeouts, waitsForTLSHandshake: tlsContext != nil, promise: promise))
                }
            }.get()
        } catch {
            promise.fail(error)
            return .failure(Self.classify(error, endpoint: endpoint))
        }
        do {
            return .success(try await promise.futureResult.get())
        } catch {
            return .failure(Self.classify(error, endpoint: endpoint))
        }
    }

    // MARK: Helpers

    func addCommonHeaders(to headers: inout HTTPHeaders) {
        headers.add(name: "Host", value: configuration.endpoint.hostHeader)
        headers.add(name: "User-Agent", value: configuration.userAgent)
        headers.add(name: "Accept", value: Self.acceptHeader)
        if let credentials = configuration.credentials {
            headers.add(name: "Authorization", value: credentials.headerValue)
        }
        // One exchange per connection: polling is rare and a fresh connection has no stale state to recover from.
        headers.add(name: "Connection", value: "close")
    }

    func requestingUser(_ options: PrintOptions?) -> String {
        options?.requestingUserName ?? configuration.requestingUserName ?? configuration.credentials?.user ?? "mobile"
    }

    func nextRequestID() -> Int32 {
        requestIDs.withLock { counter in
            counter = counter == Int32.max ? 1 : counter + 1
            return counter
        }
    }

    func backoff(afterAttempt attempt: Int) -> TimeAmount {
        let policy = configuration.retry
        let base = policy.delay(afterAttempt: attempt)
        guard policy.jitter > 0 else { return base }
        let extra = Double(base.nanoseconds) * policy.jitter * node.random.unit()
        return .nanoseconds(base.nanoseconds + Int64(extra))
    }

    /// Waits on the node's loop (virtual time under simulation).
    func sleep(_ delay: TimeAmount) async {
        try? await node.eventLoop.scheduleTask(in: delay) {}.futureResult.get()
    }
}
