#!/usr/bin/env python3
"""Loopback HTTP proxy that records every IPP message passing between a client
(ipptool) and a printer (ippeveprinter) as a fixture file.

Stdlib only. It de-chunks request and response bodies, forwards them with a
Content-Length, and writes each IPP message to
``<out>/<prefix>-<seq>-<operation>-request.ipp`` / ``...-response.ipp``.

Only the IPP part of a request is saved: the document data that follows the
end-of-attributes tag (Print-Job, Send-Document) is cut, so fixtures stay
small and contain only what the IPP codec reads. The proxy serves until it is
killed (the capture script stops it by pid).

Usage: ipp-capture-proxy.py --listen PORT --upstream PORT --out DIR --prefix NAME
"""

import argparse
import os
import socket
import socketserver
import struct
import sys
import threading

OPERATION_NAMES = {
    0x0002: "print-job", 0x0004: "validate-job", 0x0005: "create-job",
    0x0006: "send-document", 0x0008: "cancel-job", 0x0009: "get-job-attributes",
    0x000A: "get-jobs", 0x000B: "get-printer-attributes", 0x000C: "hold-job",
    0x000D: "release-job", 0x0039: "cancel-my-jobs", 0x003B: "close-job",
    0x003C: "identify-printer",
}


def ipp_attribute_section_length(body):
    """Length of the IPP message proper: header + attributes + end tag.

    Returns None when the body is not a complete IPP attribute section, in
    which case the whole body is saved so that nothing is silently lost.
    """
    if len(body) < 9:
        return None
    pos = 8
    while pos < len(body):
        tag = body[pos]
        if tag == 0x03:
            return pos + 1
        if tag < 0x10:
            pos += 1
            continue
        if pos + 3 > len(body):
            return None
        name_length = struct.unpack(">H", body[pos + 1:pos + 3])[0]
        pos += 3 + name_length
        if pos + 2 > len(body):
            return None
        value_length = struct.unpack(">H", body[pos:pos + 2])[0]
        pos += 2 + value_length
    return None


class Capture:
    """Numbers the exchanges and writes the files; shared by all connections."""

    def __init__(self, out, prefix):
        self.out = out
        self.prefix = prefix
        self.sequence = 0
        self.lock = threading.Lock()

    def next_name(self, request_body):
        operation = "unknown"
        if len(request_body) >= 4:
            code = struct.unpack(">H", request_body[2:4])[0]
            operation = OPERATION_NAMES.get(code, "operation-%04x" % code)
        with self.lock:
            self.sequence += 1
            return "%s-%02d-%s" % (self.prefix, self.sequence, operation)

    def save(self, name, suffix, body):
        length = ipp_attribute_section_length(body)
        data = body if length is None else body[:length]
        path = os.path.join(self.out, "%s-%s.ipp" % (name, suffix))
        with open(path, "wb") as handle:
            handle.write(data)
        print("captured %s (%d bytes%s)" % (path, len(data),
              "" if length is None or length == len(body)
              else ", %d document bytes cut" % (len(body) - length)), flush=True)


class HTTPStream:
    """Buffered reader over a socket for HTTP/1.1 heads and bodies."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("peer closed the connection")
        self.buffer += chunk

    def read_until(self, marker):
        while marker not in self.buffer:
            self._fill()
        index = self.buffer.index(marker) + len(marker)
        data, self.buffer = self.buffer[:index], self.buffer[index:]
        return data

    def read_exactly(self, count):
        while len(self.buffer) < count:
            self._fill()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def read_to_close(self):
        try:
            while True:
                self._fill()
        except EOFError:
            pass
        data, self.buffer = self.buffer, b""
        return data

    def read_head(self):
        head = self.read_until(b"\r\n\r\n").decode("latin-1")
        lines = head.split("\r\n")
        start = lines[0]
        headers = []
        for line in lines[1:]:
            if line:
                key, _, value = line.partition(":")
                headers.append((key.strip(), value.strip()))
        return start, headers

    def read_body(self, headers, until_close_allowed):
        values = {key.lower(): value for key, value in headers}
        if "chunked" in values.get("transfer-encoding", "").lower():
            body = b""
            while True:
                size_line = self.read_until(b"\r\n").decode("latin-1")
                size = int(size_line.split(";")[0].strip(), 16)
                if size == 0:
                    # Trailer section ends with an empty line.
                    while self.read_until(b"\r\n") != b"\r\n":
                        pass
                    return body
                body += self.read_exactly(size)
                self.read_exactly(2)
        if "content-length" in values:
            return self.read_exactly(int(values["content-length"]))
        return self.read_to_close() if until_close_allowed else b""


HOP_HEADERS = {"transfer-encoding", "content-length", "expect", "connection"}


def rebuild(start, headers, body):
    lines = [start]
    lines += ["%s: %s" % (k, v) for k, v in headers if k.lower() not in HOP_HEADERS]
    lines.append("Content-Length: %d" % len(body))
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class ProxyHandler(socketserver.BaseRequestHandler):
    def handle(self):
        client = HTTPStream(self.request)
        upstream_socket = socket.create_connection(("127.0.0.1", self.server.upstream_port))
        upstream = HTTPStream(upstream_socket)
        try:
            while True:
                try:
                    start, headers = client.read_head()
                except EOFError:
                    return
                expects_continue = any(k.lower() == "expect" and "100-continue" in v.lower()
                                       for k, v in headers)
                if expects_continue:
                    self.request.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                body = client.read_body(headers, until_close_allowed=False)
                is_ipp = any(k.lower() == "content-type" and "application/ipp" in v.lower()
                             for k, v in headers)
                name = self.server.capture.next_name(body) if is_ipp else None
                if name:
                    self.server.capture.save(name, "request", body)
                upstream_socket.sendall(rebuild(start, headers, body))

                status, response_headers = upstream.read_head()
                while status.split(" ")[1].startswith("1"):
                    status, response_headers = upstream.read_head()
                response_body = upstream.read_body(response_headers, until_close_allowed=True)
                if name and any(k.lower() == "content-type" and "application/ipp" in v.lower()
                                for k, v in response_headers):
                    self.server.capture.save(name, "response", response_body)
                self.request.sendall(rebuild(status, response_headers, response_body))
        finally:
            upstream_socket.close()


class ProxyServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--upstream", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--prefix", required=True)
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    server = ProxyServer(("127.0.0.1", arguments.listen), ProxyHandler)
    server.upstream_port = arguments.upstream
    server.capture = Capture(arguments.out, arguments.prefix)
    print("proxy 127.0.0.1:%d -> 127.0.0.1:%d" % (arguments.listen, arguments.upstream), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
