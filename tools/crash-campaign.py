#!/usr/bin/env python3
"""The crash campaign behind tools/crash-campaign.sh: what `workbench serve` acknowledged survives kill -9.

Starts `workbench serve` (MiG, SCPms, the IMS signer and IMS) on spare loopback ports with its own state
folder, drives it with concurrent clients, kills it with SIGKILL at moments drawn from --seed, restarts it on
the same ports and state each time, and at the end checks what the clients were told:

  MiG     every job answered HTTP 200 + successful-ok is listed once by Get-Jobs (which-jobs=all), under
          its job-id and job-name, and its document is in the spool folder with every byte that was sent
          (a job already completed may have had its document deleted, as MiG does with preserve-job-files=false;
          if the file is still there it must be whole);
  SCPms   every registration answered 201 still reads back (GET …/Connections('<id>') → 200);
  IMS     no token whose jti IMS accepted (201) before a crash is accepted again after it: every accepted
          token is replayed at the end (and some during the run) and must be refused as a replay.

Prints one summary line and exits 1 on any loss. Python 3 standard library only; every request goes to
127.0.0.1, bounded by --kills and by timeouts.
"""
import argparse
import base64
import http.client
import json
import os
import queue
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ACTORS = ["mig", "scpms", "ims-signer", "ims"]
REQUEST_TIMEOUT = 10.0
READY_TIMEOUT = 120.0  # a debug build on a busy two-core machine can take a while to open four actors
# How much longer than its drawn moment the last kill waits for every kind of client to have been acknowledged once.
# A campaign proves nothing about a kind no client of which was acknowledged; on a loaded machine the drawn uptimes
# can all end before, say, the first registration (a debug build hashing passwords on a busy core).
LAST_KILL_PATIENCE = 30.0


# MARK: IPP (RFC 8010), just what Print-Job and Get-Jobs need

def ipp_attribute(tag, name, value):
    name = name.encode()
    value = value if isinstance(value, bytes) else value.encode()
    return bytes([tag]) + struct.pack(">H", len(name)) + name + struct.pack(">H", len(value)) + value


def ipp_request(operation, request_id, printer_uri, extra):
    body = struct.pack(">BBHI", 2, 0, operation, request_id) + b"\x01"
    body += ipp_attribute(0x47, "attributes-charset", "utf-8")
    body += ipp_attribute(0x48, "attributes-natural-language", "en")
    body += ipp_attribute(0x45, "printer-uri", printer_uri)
    body += ipp_attribute(0x42, "requesting-user-name", "demo")
    return body + extra + b"\x03"


def ipp_response(data):
    """(status, [(group tag, {name: [values]})]); integers and enums decoded, the rest as text."""
    if len(data) < 8:
        raise ValueError("IPP response shorter than its 8-byte header")
    status = struct.unpack(">H", data[2:4])[0]
    groups, offset, name = [], 8, None
    while offset < len(data):
        tag = data[offset]
        offset += 1
        if tag == 0x03:
            break
        if tag < 0x10:
            groups.append((tag, {}))
            continue
        name_length = struct.unpack(">H", data[offset:offset + 2])[0]
        offset += 2
        if name_length:
            name = data[offset:offset + name_length].decode("utf-8", "replace")
        offset += name_length
        value_length = struct.unpack(">H", data[offset:offset + 2])[0]
        offset += 2
        raw = data[offset:offset + value_length]
        offset += value_length
        value = struct.unpack(">i", raw)[0] if tag in (0x21, 0x23) and len(raw) == 4 else raw.decode("utf-8", "replace")
        if groups and name is not None:
            groups[-1][1].setdefault(name, []).append(value)
    return status, groups


# MARK: The served process

def spare_ports(count):
    """Ports the kernel hands out now and no one listens on; kept for every restart, as a real server's are."""
    sockets = []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


class Endpoints:
    """What one run of serve told: URLs and the demo credentials (the signer's app token is new every run)."""

    def __init__(self, lines):
        def last_word(prefix):
            for line in lines:
                if line.startswith(prefix):
                    return line.split()[-1]
            raise RuntimeError("serve printed no line starting %r" % prefix)
        mig = urllib.parse.urlsplit(last_word("listening mig ipp://"))
        self.mig_host, self.mig_port = mig.hostname, mig.port
        self.mig_auth = "Basic " + base64.b64encode(("%s:%s" % (mig.username, mig.password)).encode()).decode()
        self.printer_uri = "ipp://%s:%d%s" % (mig.hostname, mig.port, mig.path)
        register = next((line for line in lines if line.startswith("note scpms register: ")), None)
        if register is None:
            raise RuntimeError("serve printed no 'note scpms register:' line")
        credentials = re.search(r"-u (\S+)", register)
        self.scpms_auth = "Basic " + base64.b64encode(credentials.group(1).encode()).decode() if credentials else ""
        self.scpms_connections = urllib.parse.urlsplit(register.split()[-1])
        self.signer = urllib.parse.urlsplit(last_word("listening ims-signer http://"))
        self.ims = urllib.parse.urlsplit(last_word("listening ims http://"))
        self.api_key = last_word("note ims-signer api-key ")
        bearer = next((line.split() for line in lines if line.startswith("note ims-signer bearer-token ")), None)
        if bearer is None or len(bearer) < 4:
            raise RuntimeError("serve printed no 'note ims-signer bearer-token' line")
        self.bearer, self.user = bearer[3], bearer[-1]


class Served:
    """`workbench serve` on fixed ports and one state folder, killed and restarted by the campaign."""

    def __init__(self, binary, state, ports, mig_sync, log):
        self.binary, self.state, self.log = binary, state, log
        mig_port, scpms_port, signer_port, ims_port = ports
        self.arguments = [binary, "serve", "--state-dir", state]
        for actor in ACTORS:
            self.arguments += ["--only", actor]
        self.arguments += ["--set", "mig.tls-port=none", "--set", "mig.plain-port=%d" % mig_port,
                           "--set", "scpms.tls-port=none", "--set", "scpms.port=%d" % scpms_port,
                           "--set", "ims-signer.tls=false", "--set", "ims-signer.port=%d" % signer_port,
                           "--set", "ims.port=%d" % ims_port,
                           # Every acknowledged job must be listed at the end: MiG keeps them all rather than
                           # forget the oldest finished ones beyond its default 500 (max-jobs).
                           "--set", "mig.max-jobs=0"]
        if mig_sync is not None:
            self.arguments += ["--set", "mig.sync-to-disk=%s" % ("true" if mig_sync else "false")]
        self.process = None
        self.lock = threading.Lock()
        self.endpoints = None
        self.generation = 0  # which run of serve: bumped at every start, so replays can tell "before a crash"

    def start(self):
        # A port can stay taken for a moment after SIGKILL on a loaded machine: try a few times.
        for attempt in range(5):
            process = subprocess.Popen(self.arguments, stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL,
                                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            lines = self._startup_lines(process)
            if lines is not None:
                with self.lock:
                    self.process = process
                    self.endpoints = Endpoints(lines)
                    self.generation += 1
                return
            process.kill()
            process.wait()
            time.sleep(0.5 * (attempt + 1))
        raise RuntimeError("workbench serve did not start five times in a row; see %s" % self.log.name)

    @staticmethod
    def _startup_lines(process):
        """serve's lines up to the last actor's notes, or None when it ended or hung first."""
        lines, found = queue.Queue(), []

        def read():
            for raw in process.stdout:
                lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
            lines.put(None)
        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                return None
            found.append(line)
            # Actors start in catalog order and IMS is the last of these four; its admin note ends the start-up.
            if line.startswith("note ims admin-token"):
                return found
        return None

    def kill(self):
        with self.lock:
            process, self.process = self.process, None
        if process is not None:
            process.send_signal(signal.SIGKILL)
            process.wait()

    def current(self):
        with self.lock:
            return (self.endpoints, self.generation) if self.process is not None else (None, self.generation)


# MARK: Clients

class Record:
    """What the clients were told, shared between their threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.jobs = []            # (job-id, job-name, bytes)
        self.registrations = []   # (id, entity path)
        self.tokens = []          # (jti, token, generation accepted in)
        self.replays_sent = 0
        self.replays_accepted = []
        self.failures = 0         # requests cut by a kill or refused: expected, counted for the summary


def post(host, port, path, body, headers, connection=None):
    """One request; returns (connection to reuse, status, headers, body). Raises on a cut connection."""
    connection = connection or http.client.HTTPConnection(host, port, timeout=REQUEST_TIMEOUT)
    connection.request("POST", path, body=body, headers=headers)
    response = connection.getresponse()
    return connection, response.status, response.getheaders(), response.read()


def mig_client(index, served, record, stop, seed):
    rng = random.Random("%d-mig-%d" % (seed, index))
    connection, endpoints, number = None, None, 0
    while not stop.is_set():
        current, _ = served.current()
        if current is None:
            time.sleep(0.05)
            continue
        if current is not endpoints:
            connection, endpoints = None, current
        number += 1
        name = "c%d-j%d" % (index, number)
        # Sizes vary so a document cut short by a kill would not match by accident.
        size = rng.randint(1, 48) * 1024 + rng.randint(0, 1023)
        # One-page DSC PostScript padded with random bytes, sent as application/octet-stream as raw queues send: MiG
        # recognises it and counts its page from the comments (bytes of no format it would refuse; a PDF cut short
        # it would parse and abort).
        header = b"%!PS-Adobe-3.0\n%%Pages: 1\n%%EndComments\n%%Page: 1 1\n% crash-campaign "
        document = (header + bytes(rng.getrandbits(8) for _ in range(64)) * (size // 64 + 1))[:size]
        request = ipp_request(0x0002, number, endpoints.printer_uri,
                              ipp_attribute(0x42, "job-name", name)
                              + ipp_attribute(0x49, "document-format", "application/octet-stream"))
        try:
            connection, status, _, body = post(endpoints.mig_host, endpoints.mig_port, "/ipp/print", request + document,
                                               {"Content-Type": "application/ipp", "Authorization": endpoints.mig_auth},
                                               connection)
            ipp_status, groups = ipp_response(body) if status == 200 else (None, [])
        except (OSError, http.client.HTTPException, ValueError, struct.error):
            connection = None
            with record.lock:
                record.failures += 1
            continue
        job_ids = [value for tag, attributes in groups if tag == 0x02 for value in attributes.get("job-id", [])]
        if status == 200 and ipp_status is not None and ipp_status < 0x0100 and job_ids:
            with record.lock:
                record.jobs.append((job_ids[0], name, size))
        else:
            with record.lock:
                record.failures += 1


def scpms_client(index, served, record, stop):
    connection, endpoints = None, None
    while not stop.is_set():
        current, _ = served.current()
        if current is None:
            time.sleep(0.05)
            continue
        if current is not endpoints:
            connection, endpoints = None, current
        collection = endpoints.scpms_connections
        try:
            connection, status, headers, _ = post(collection.hostname, collection.port, collection.path,
                                                  json.dumps({"DeviceType": "Android", "DeviceModel": "campaign-%d" % index}),
                                                  {"Content-Type": "application/json", "Authorization": endpoints.scpms_auth},
                                                  connection)
        except (OSError, http.client.HTTPException):
            connection = None
            with record.lock:
                record.failures += 1
            continue
        cookie = next((value for key, value in headers if key.lower() == "set-cookie" and value.startswith("X-SMP-APPCID=")), "")
        registration = cookie.split(";")[0].partition("=")[2]
        if status == 201 and registration:
            with record.lock:
                record.registrations.append((registration, "%s('%s')" % (collection.path, registration)))
        else:
            with record.lock:
                record.failures += 1


def base64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def start_session(endpoints, token, connection=None):
    return post(endpoints.ims.hostname, endpoints.ims.port, endpoints.ims.path.rstrip("/") + "/v1/sessions", b"",
                {"Authorization": "Bearer " + token}, connection)


def ims_client(index, served, record, stop, seed):
    rng = random.Random("%d-ims-%d" % (seed, index))
    signer, ims, endpoints, number = None, None, None, 0
    while not stop.is_set():
        current, generation = served.current()
        if current is None:
            time.sleep(0.05)
            continue
        if current is not endpoints:
            signer, ims, endpoints = None, None, current
        number += 1
        try:
            # Now and then, a token accepted by an earlier run of serve: IMS must still remember its jti.
            with record.lock:
                earlier = [entry for entry in record.tokens if entry[2] < generation]
            if earlier and number % 4 == 0:
                jti, token, _ = rng.choice(earlier)
                ims, status, _, body = start_session(endpoints, token, ims)
                with record.lock:
                    record.replays_sent += 1
                    if status == 201:
                        record.replays_accepted.append((jti, body.decode("utf-8", "replace")))
                continue
            now = int(time.time())
            jti = "campaign-%d-%d-%d-%s" % (seed, index, number, base64url(os.urandom(9)))
            claims = {"iss": endpoints.api_key, "sub": endpoints.user, "jti": jti, "nbf": now, "exp": now + 900}
            prototype = base64url(json.dumps({"alg": "RS256", "typ": "JWT"}, separators=(",", ":")).encode()) + "." + \
                base64url(json.dumps(claims, separators=(",", ":")).encode())
            signer, status, _, body = post(endpoints.signer.hostname, endpoints.signer.port, "/sign", prototype,
                                           {"Content-Type": "text/plain", "Authorization": "Bearer " + endpoints.bearer}, signer)
            if status != 200:
                with record.lock:
                    record.failures += 1
                continue
            token = body.decode().strip()
            ims, status, _, body = start_session(endpoints, token, ims)
        except (OSError, http.client.HTTPException, UnicodeDecodeError):
            signer, ims = None, None
            with record.lock:
                record.failures += 1
            continue
        with record.lock:
            if status == 201:
                record.tokens.append((jti, token, generation))
            else:
                record.failures += 1


# MARK: The checks, against the last restart

def list_mig_jobs(endpoints):
    """Every job MiG lists: job-id -> [(job-name, job-state)]."""
    extra = ipp_attribute(0x44, "which-jobs", "all") + ipp_attribute(0x44, "requested-attributes", "job-id") + \
        ipp_attribute(0x44, "", "job-name") + ipp_attribute(0x44, "", "job-state")
    _, status, _, body = post(endpoints.mig_host, endpoints.mig_port, "/ipp/print", ipp_request(0x000A, 1, endpoints.printer_uri, extra),
                              {"Content-Type": "application/ipp", "Authorization": endpoints.mig_auth})
    if status != 200:
        raise RuntimeError("Get-Jobs answered HTTP %d" % status)
    ipp_status, groups = ipp_response(body)
    if ipp_status >= 0x0100:
        raise RuntimeError("Get-Jobs answered IPP status 0x%04x" % ipp_status)
    listed = {}
    for tag, attributes in groups:
        if tag == 0x02:
            for job_id in attributes.get("job-id", []):
                listed.setdefault(job_id, []).append((attributes.get("job-name", [""])[0], attributes.get("job-state", [0])[0]))
    return listed


def check_mig(endpoints, record, state):
    listed = list_mig_jobs(endpoints)
    # The restarted server goes on printing while the documents are checked: a job listed as not yet completed may
    # complete, and its document be deleted, before its file is looked at. Such jobs are asked about again below.
    later = None
    names = {}
    for entries in listed.values():
        for name, _ in entries:
            names[name] = names.get(name, 0) + 1
    missing, duplicated, documents_missing, problems = 0, 0, 0, []
    for job_id, name, size in record.jobs:
        entries = listed.get(job_id, [])
        if not any(listed_name == name for listed_name, _ in entries):
            missing += 1
            problems.append("job %d (%s) acknowledged but not listed (listed as %r)" % (job_id, name, entries))
        elif len(entries) > 1 or names.get(name, 0) > 1:
            duplicated += 1
            problems.append("job %d (%s) listed %d times under its id, its name %d times" % (job_id, name, len(entries), names.get(name, 0)))
        path = os.path.join(state, "mig-spool", "job-%d-1.doc" % job_id)
        if any(state_value == 9 for _, state_value in entries):
            # Printed: its document goes after printing (preserve-job-files=false), and the server may be removing it
            # now (a file cut to one byte, then renamed as a spare). A file a kill left is the restart's to remove.
            continue
        if os.path.exists(path) and os.path.getsize(path) == size:
            continue

        def completed_in(jobs):
            return any(listed_name == name and state_value == 9 for listed_name, state_value in jobs.get(job_id, []))
        # Completed (its record first, in memory) and its document removed while the documents were being checked?
        if later is None or not completed_in(later):
            later = list_mig_jobs(endpoints)  # listed after the file was looked at
        if completed_in(later):
            continue
        documents_missing += 1
        problems.append("job %d: document %s has %s bytes, %d were acknowledged" % (
            job_id, path, os.path.getsize(path) if os.path.exists(path) else "no", size))
    aborted = sum(1 for entries in listed.values() for _, state_value in entries if state_value == 8)
    return missing, duplicated, documents_missing, len(listed), aborted, problems


def check_scpms(endpoints, record):
    collection = endpoints.scpms_connections
    connection = http.client.HTTPConnection(collection.hostname, collection.port, timeout=REQUEST_TIMEOUT)
    missing, problems = 0, []
    for registration, path in record.registrations:
        connection.request("GET", urllib.parse.quote(path, safe="/()'"), headers={"Authorization": endpoints.scpms_auth})
        response = connection.getresponse()
        body = response.read()
        if response.status != 200 or registration.encode() not in body:
            missing += 1
            problems.append("registration %s acknowledged but GET answered %d" % (registration, response.status))
    return missing, problems


def check_ims(endpoints, record):
    accepted, unverified, problems, connection = 0, 0, [], None
    for jti, token, generation in record.tokens:
        connection, status, _, body = start_session(endpoints, token, connection)
        text = body.decode("utf-8", "replace")
        if status == 201:
            accepted += 1
            problems.append("jti %s accepted in run %d was accepted again after the last restart: %s" % (jti, generation, text))
        elif "already used" not in text:
            # Refused for another reason (expired?): the replay cache was not what stopped it, so it proves nothing.
            unverified += 1
            problems.append("jti %s refused for a reason other than replay: %d %s" % (jti, status, text.strip()))
    return accepted, unverified, problems


# MARK: The campaign

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workbench", required=True, help="the workbench binary")
    parser.add_argument("--seed", type=int, default=1, help="draws the kill moments and the documents (default 1)")
    parser.add_argument("--kills", type=int, default=20, help="SIGKILLs of serve (default 20)")
    parser.add_argument("--min-up", type=float, default=0.5, help="shortest time serve runs before a kill, seconds (default 0.5)")
    parser.add_argument("--max-up", type=float, default=3.0, help="longest time serve runs before a kill, seconds (default 3)")
    parser.add_argument("--mig-clients", type=int, default=8, help="concurrent Print-Job clients (default 8)")
    parser.add_argument("--scpms-clients", type=int, default=2, help="concurrent registering clients (default 2)")
    parser.add_argument("--ims-clients", type=int, default=2, help="concurrent IMS session clients (default 2)")
    parser.add_argument("--mig-sync", choices=["default", "true", "false"], default="default",
                        help="MiG's sync-to-disk: serve's default (true), or forced (false measures the speed without fsync)")
    parser.add_argument("--state", help="state folder (default: a new temporary one, removed when nothing was lost)")
    arguments = parser.parse_args()
    if not 1 <= arguments.kills <= 10000 or not 0 < arguments.min_up <= arguments.max_up <= 3600:
        parser.error("expected 1 ≤ --kills ≤ 10000 and 0 < --min-up ≤ --max-up ≤ 3600")
    for name in ("mig_clients", "scpms_clients", "ims_clients"):
        if not 0 <= getattr(arguments, name) <= 256:
            parser.error("expected --%s from 0 to 256, found %d" % (name.replace("_", "-"), getattr(arguments, name)))

    state = arguments.state or tempfile.mkdtemp(prefix="workbench-crash-campaign-")
    os.makedirs(state, exist_ok=True)
    rng = random.Random(arguments.seed)
    moments = [rng.uniform(arguments.min_up, arguments.max_up) for _ in range(arguments.kills)]
    mig_sync = None if arguments.mig_sync == "default" else arguments.mig_sync == "true"
    print("crash campaign: seed=%d kills=%d state=%s (reproduce: tools/crash-campaign.sh --seed %d --kills %d)" % (
        arguments.seed, arguments.kills, state, arguments.seed, arguments.kills), flush=True)

    with open(os.path.join(state, "serve.log"), "ab") as log:
        served = Served(arguments.workbench, state, spare_ports(4), mig_sync, log)
        record, stop = Record(), threading.Event()
        served.start()
        clients = [threading.Thread(target=mig_client, args=(i, served, record, stop, arguments.seed)) for i in range(arguments.mig_clients)]
        clients += [threading.Thread(target=scpms_client, args=(i, served, record, stop)) for i in range(arguments.scpms_clients)]
        clients += [threading.Thread(target=ims_client, args=(i, served, record, stop, arguments.seed)) for i in range(arguments.ims_clients)]
        for client in clients:
            client.start()
        up_seconds = waited = 0.0
        try:
            for number, moment in enumerate(moments, 1):
                time.sleep(moment)
                up_seconds += moment
                if number == len(moments):
                    while not exercised(record, arguments) and waited < LAST_KILL_PATIENCE:
                        time.sleep(0.1)
                        waited += 0.1
                    up_seconds += waited
                served.kill()
                if number == len(moments):
                    # The last kill lands under load too; then the clients stop, so all they were told precedes it.
                    stop.set()
                    for client in clients:
                        client.join()
                served.start()
            endpoints, _ = served.current()
            mig = check_mig(endpoints, record, state)
            scpms = check_scpms(endpoints, record)
            ims = check_ims(endpoints, record)
        finally:
            stop.set()
            served.kill()

    jobs_missing, duplicated, documents_missing, listed, aborted, mig_problems = mig
    registrations_missing, scpms_problems = scpms
    replays_accepted, replays_unverified, ims_problems = ims
    replays_accepted += len(record.replays_accepted)
    ims_problems += ["jti %s replayed during the run was accepted: %s" % entry for entry in record.replays_accepted]
    for problem in (mig_problems + scpms_problems + ims_problems)[:40]:
        print("  " + problem)
    rate = len(record.jobs) / up_seconds if up_seconds else 0.0
    print("kills=%d acknowledged_jobs=%d missing=%d duplicated=%d documents_missing=%d registrations=%d missing=%d "
          "sessions=%d replays_sent=%d replays_accepted=%d replays_unverified=%d" % (
              arguments.kills, len(record.jobs), jobs_missing, duplicated, documents_missing, len(record.registrations),
              registrations_missing, len(record.tokens), replays_sent_total(record), replays_accepted, replays_unverified))
    print("  mig: %d jobs listed (%d aborted: uploads a kill cut short), %.1f acknowledged jobs/s over %.1f s of uptime "
          "with %d clients, sync-to-disk %s; %d requests cut by kills or refused" % (
              listed, aborted, rate, up_seconds, arguments.mig_clients, arguments.mig_sync, record.failures))
    if waited:
        print("  the last kill came %.1f s after its drawn moment: it waited for every kind of client to be acknowledged" % waited)
    lost = jobs_missing + duplicated + documents_missing + registrations_missing + replays_accepted + replays_unverified
    if not exercised(record, arguments):
        print("FAIL: a kind of client was never acknowledged, so the campaign proves nothing about it (serve.log: %s)" % state)
        return 1
    if lost:
        print("FAIL: state kept in %s" % state)
        return 1
    if not arguments.state:
        shutil.rmtree(state, ignore_errors=True)
    print("PASS")
    return 0


def exercised(record, arguments):
    """Whether a client of every kind the campaign runs has been acknowledged at least once."""
    with record.lock:
        return bool(record.jobs) and (bool(record.registrations) or not arguments.scpms_clients) and (
            bool(record.tokens) or not arguments.ims_clients)


def replays_sent_total(record):
    """Replays during the run plus the final one of every accepted token."""
    return record.replays_sent + len(record.tokens)


if __name__ == "__main__":
    sys.exit(main())
