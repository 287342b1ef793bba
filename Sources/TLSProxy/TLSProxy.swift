import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import Wire
import WireHTTP

/// A TLS-terminating reverse proxy in front of MiG, doing what the original deployment's nginx configuration does:
///
/// ```
/// ssl_verify_client on; ssl_client_certificate ca.cer;
/// location ^~ /ipp/print { proxy_set_header SSL_CLIENT_CERT $ssl_client_cert; proxy_pass http://mig:8050; }
/// ```
///
/// Client certificates are verified against the CA during the handshake; a request without one is answered
/// `400 No required SSL certificate was sent`, as nginx does. The certificate travels upstream in the
/// `SSL_CLIENT_CERT` header, percent-encoded like nginx's `$ssl_client_escaped_cert` (HTTP header values
/// cannot carry the raw PEM's line breaks). The certificate is public, so MiG believes the header only with the
/// deployment's secret, which the proxy adds as `X-MiG-Proxy-Secret` (the original deployment's nginx needs the same line:
/// `proxy_set_header X-MiG-Proxy-Secret "<secret>";`).
public final class TLSProxy: Sendable {
    public struct Configuration: Sendable {
        public var port = 443
        public var certificatePath: String
        public var privateKeyPath: String
        /// The CA client certificates must chain to.
        public var clientCAPath: String
        public var upstreamHost: String
        public var upstreamPort: Int
        /// Only paths under this prefix are proxied (`location ^~ /ipp/print`); others get 404.
        public var pathPrefix = "/ipp/print"
        /// Sent upstream as `X-MiG-Proxy-Secret` (MiG's `proxySecret`), so MiG can tell the proxy's forwarded
        /// certificate from one a client typed into a header. nil sends none.
        public var upstreamSecret: String?

        public init(certificatePath: String, privateKeyPath: String, clientCAPath: String, upstreamHost: String, upstreamPort: Int) {
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
            self.clientCAPath = clientCAPath
            self.upstreamHost = upstreamHost
            self.upstreamPort = upstreamPort
        }
    }

    public let node: Node
    public let configuration: Configuration
    public let listener: any Listener

    private init(node: Node, configuration: Configuration, listener: any Listener) {
        self.node = node
        self.configuration = configuration
        self.listener = listener
    }

    public static func start(on node: Node, configuration: Configuration) -> EventLoopFuture<TLSProxy> {
        let context: NIOSSLContext
        do {
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(configuration.certificatePath).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: configuration.privateKeyPath, format: .pem)))
            tls.certificateVerification = .optionalVerification
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(configuration.clientCAPath))
            context = try NIOSSLContext(configuration: tls)
        } catch {
            return node.eventLoop.makeFailedFuture(error)
        }
        // Connections run on every loop: a connection's state is its handlers', and its upstream runs on its loop.
        return node.listen(port: configuration.port, connections: .every) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addTLSServerHandler(NIOSSLServerHandler(context: context), node: node)
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(answeringBadRequestsOf: node)
                try channel.pipeline.syncOperations.addHandler(DownstreamHandler(node: node, configuration: configuration))
            }
        }.map { listener in
            node.trace("started", [("port", "\(listener.port)"), ("upstream", "\(configuration.upstreamHost):\(configuration.upstreamPort)")])
            return TLSProxy(node: node, configuration: configuration, listener: listener)
        }
    }

    public var endpoints: [(label: String, url: String)] { [("https", "https://\(listener.host):\(listener.port)\(configuration.pathPrefix)")] }

    public func stop() -> EventLoopFuture<Void> { listener.close() }
}

/// One client connection: checks the certificate and path, then relays to one upstream connection.
private final class DownstreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let node: Node
    let configuration: TLSProxy.Configuration
    private var upstream: (any Channel)?
    private var pending: [HTTPClientRequestPart] = []
    private var refusing = false

    init(node: Node, configuration: TLSProxy.Configuration) {
        self.node = node
        self.configuration = configuration
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            refusing = false
            let path = head.uri.split(separator: "?").first.map(String.init) ?? head.uri
            node.trace("proxy-request", [("from", context.channel.peerText), ("method", "\(head.method)"), ("path", path)])
            guard let certificate = try? context.pipeline.syncOperations.nioSSL_peerCertificate() else {
                node.trace("proxy-refused", [("path", path), ("reason", "no client certificate")])
                return refuse(context: context, .badRequest, "No required SSL certificate was sent")
            }
            guard path.hasPrefix(configuration.pathPrefix) else {
                node.trace("proxy-refused", [("path", path), ("reason", "outside \(configuration.pathPrefix)")])
                return refuse(context: context, .notFound, "Not Found")
            }
            // Whatever the client sent under these names is replaced: only the proxy speaks for the certificate.
            head.headers.remove(name: "SSL-Client-Cert")
            head.headers.remove(name: "X-MiG-Proxy-Secret")
            head.headers.replaceOrAdd(name: "SSL_CLIENT_CERT", value: Self.escapedPEM(certificate))
            if let secret = configuration.upstreamSecret { head.headers.add(name: "X-MiG-Proxy-Secret", value: secret) }
            head.headers.replaceOrAdd(name: "X-Forwarded-Proto", value: "https")
            forward(context: context, .head(head))
        case .body(let chunk):
            if !refusing { forward(context: context, .body(.byteBuffer(chunk))) }
        case .end(let trailers):
            if !refusing { forward(context: context, .end(trailers)) }
        }
    }

    /// nginx's error page for the status, with `Connection: close`.
    private func refuse(context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ title: String) {
        refusing = true
        node.trace("http-response", [("from", context.channel.peerText), ("status", "\(status.code)")])
        let page =
            "<html>\r\n<head><title>\(status.code) \(title)</title></head>\r\n<body>\r\n<center><h1>\(status.code) \(status.reasonPhrase)</h1></center>\r\n<center>\(title)</center>\r\n<hr><center>nginx (Workbench TLS proxy)</center>\r\n</body>\r\n</html>\r\n"
        let headers: HTTPHeaders = ["Content-Type": "text/html", "Content-Length": "\(page.utf8.count)", "Connection": "close"]
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: page)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(mode: .output, promise: nil) }
    }

    private func forward(context: ChannelHandlerContext, _ part: HTTPClientRequestPart) {
        if let upstream {
            upstream.writeAndFlush(part, promise: nil)
            return
        }
        pending.append(part)
        guard pending.count == 1 else { return }
        let downstream = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let node = self.node
        node.connect(host: configuration.upstreamHost, port: configuration.upstreamPort, on: context.eventLoop) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                try channel.pipeline.syncOperations.addHandler(UpstreamHandler(downstream: downstream))
            }
        }.whenComplete { result in
            let (handler, context) = downstream.value
            switch result {
            case .success(let channel):
                handler.upstream = channel
                for part in handler.pending { channel.write(part, promise: nil) }
                channel.flush()
                handler.pending = []
            case .failure(let error):
                node.trace("proxy-upstream-failed", [("error", "\(error)")])
                handler.pending = []
                handler.refuse(context: context, .badGateway, "Bad Gateway")
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        upstream?.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        node.trace("proxy-error", [("error", "\(error)")])
        context.close(promise: nil)
    }

    /// The certificate as PEM, percent-encoded (what nginx's `$ssl_client_escaped_cert` sends).
    static func escapedPEM(_ certificate: NIOSSLCertificate) -> String {
        let der = (try? certificate.toDERBytes()) ?? []
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let pem = "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        return pem.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? pem
    }
}

/// Relays the upstream's answer back to the client connection.
private final class UpstreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    let downstream: NIOLoopBound<(DownstreamHandler, ChannelHandlerContext)>

    init(downstream: NIOLoopBound<(DownstreamHandler, ChannelHandlerContext)>) { self.downstream = downstream }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let (proxy, client) = downstream.value
        switch unwrapInboundIn(data) {
        case .head(let head):
            // A 100 Continue is not the answer.
            if head.status.code >= 200 {
                proxy.node.trace("http-response", [("from", client.channel.peerText), ("status", "\(head.status.code)")])
            }
            client.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        case .body(let chunk):
            client.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(chunk))), promise: nil)
        case .end(let trailers):
            client.writeAndFlush(NIOAny(HTTPServerResponsePart.end(trailers)), promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let client = downstream.value.1
        client.flush()
        client.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
