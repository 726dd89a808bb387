#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The deployment of docs/deploy.md end to end on this host, in a private
mount namespace (meson runs it under unshare -m): the fstab line of
docs/deploy.md mounts osprof-fs through mount(8) and mount.fuse3 (the
build's osprof-fs bound over /usr/local/bin, as mount gives its helpers
a fixed PATH), a workload reads through the mount, osprof-exporter runs
as nobody with the options of deploy/systemd/osprof-exporter.default,
and Debian's Prometheus with native histograms scrapes it every second
with deploy/prometheus/osprof.rules.yml loaded. Then: the Grafana
dashboard is checked as JSON (its panels, their targets, every variable
they use defined), each variable's label_values query must offer the
sample value, every target's expression (variables replaced by sample
values) and every recording rule must return data, all of it finite.
Exit 77 (skipped) without root, /dev/fuse or prometheus.
  check-live.py SOURCEDIR      (env: OSPROF_FS, OEX_BIN, OSPROF_PROMETHEUS)
"""
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import yaml

SRC = sys.argv[1]
DASH = os.path.join(SRC, "deploy/grafana/osprof.json")
RULES = os.path.join(SRC, "deploy/prometheus/osprof.rules.yml")
DEFAULT = os.path.join(SRC, "deploy/systemd/osprof-exporter.default")
DOC = os.path.join(SRC, "docs/deploy.md")
PROM = os.environ.get("OSPROF_PROMETHEUS", "/usr/bin/prometheus")
failures = []


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    failures.append(msg)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_dashboard(d):
    """The JSON's shape: what Grafana needs and what the issue asks for.
    Returns [(panel title, expr)]."""
    names = {v["name"] for v in d.get("templating", {}).get("list", [])}
    exprs = []
    kinds = set()
    for key in ("uid", "title", "panels", "schemaVersion"):
        if key not in d:
            fail(f"dashboard has no {key}")
    for p in d.get("panels", []):
        kinds.add(p["type"])
        if p["type"] == "row":
            continue
        if not p.get("targets"):
            fail(f"panel '{p.get('title')}' has no targets")
        for t in p.get("targets", []):
            if not t.get("expr"):
                fail(f"panel '{p.get('title')}' has a target with no expr")
                continue
            for v in re.findall(r"\$(\w+)", t["expr"]):
                if v not in names and not v.startswith("__"):
                    fail(f"panel '{p['title']}' uses ${v}, not a variable")
            exprs.append((p["title"], t["expr"]))
    for k in ("heatmap", "timeseries", "stat"):
        if k not in kinds:
            fail(f"dashboard has no {k} panel")
    return exprs


def substitute(expr, sample):
    for k, v in sample.items():
        expr = expr.replace("$" + k, v)
    return expr


def query(port, path, params):
    url = f"http://127.0.0.1:{port}{path}?" + urllib.parse.urlencode(params, doseq=True)
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.load(r)
    except Exception as e:  # an HTTP error, a bad expression: no data
        body = e.read().decode() if hasattr(e, "read") else str(e)
        return {"status": "error", "error": body}


def finite_result(ans):
    """Whether an instant query answered at least one sample, every one a
    finite number or a native histogram with requests in it."""
    if ans.get("status") != "success":
        return False, ans.get("error", ans)
    res = ans["data"]["result"]
    if not res:
        return False, "no data"
    for s in res:
        if "histogram" in s:
            if float(s["histogram"][1]["count"]) <= 0:
                return False, f"empty histogram {s['metric']}"
        elif not math.isfinite(float(s["value"][1])):
            return False, f"{s['value'][1]} for {s['metric']}"
    return True, f"{len(res)} series"


def fstab_line(lower, mnt):
    """The fstab line docs/deploy.md gives, for /data on /mnt/p."""
    for line in open(DOC):
        if line.startswith("/data /mnt/p fuse.osprof-fs "):
            return line.replace("/data", lower).replace("/mnt/p", mnt)
    fail("docs/deploy.md has no fstab line '/data /mnt/p fuse.osprof-fs ...'")
    sys.exit(1)


def exporter_args(port, mnt):
    """OSPROF_EXPORTER_ARGS of the shipped options file, for this mount."""
    m = re.search(r'^OSPROF_EXPORTER_ARGS="(.*)"$', open(DEFAULT).read(), re.M)
    args = m.group(1).replace("127.0.0.1:9464", f"127.0.0.1:{port}").split()
    return [a if a != "/mnt/p" else mnt for a in args]


def workload(mnt, scratch, stop):
    """Reads through the mount; and, every 20th round, a synced write
    beside it, so that the block layer (every disk's requests, not the
    mount's) has requests in every window whatever the page cache holds:
    a layer with none in a rule's window has no quantile (NaN)."""
    n = 0
    while not stop.is_set():
        for name in os.listdir(mnt):
            with open(os.path.join(mnt, name), "rb") as f:
                f.read()
        if n % 20 == 0:
            with open(scratch, "wb") as f:
                f.write(os.urandom(4096))
                f.flush()
                os.fsync(f.fileno())
        n += 1
        time.sleep(0.01)


def main():
    if os.geteuid() != 0 or not os.path.exists("/dev/fuse"):
        print("skip: needs root and /dev/fuse", file=sys.stderr)
        return 77
    if not os.access(PROM, os.X_OK):
        print(f"skip: no {PROM}: install Debian's prometheus", file=sys.stderr)
        return 77
    dash = json.load(open(DASH))
    exprs = check_dashboard(dash)
    rules = yaml.safe_load(open(RULES))
    records = [r["record"] for g in rules["groups"] for r in g["rules"] if "record" in r]

    tmp = tempfile.mkdtemp(prefix="osprof-deploy.")
    os.chmod(tmp, 0o755)
    lower, mnt, bindir = (os.path.join(tmp, x) for x in ("lower", "mnt", "bin"))
    for d in (lower, mnt, bindir):
        os.mkdir(d)
    for i in range(8):
        with open(os.path.join(lower, f"f{i}"), "wb") as f:
            f.write(os.urandom(4096 * (i + 1)))
    os.symlink(os.environ["OSPROF_FS"], os.path.join(bindir, "osprof-fs"))
    with open(os.path.join(tmp, "fstab"), "w") as f:
        f.write(fstab_line(lower, mnt))
    procs, stop, mounted = [], threading.Event(), False
    try:
        subprocess.run(["mount", "--make-rprivate", "/"], check=True)
        subprocess.run(["mount", "--bind", bindir, "/usr/local/bin"], check=True)
        subprocess.run(["mount", "--fstab", os.path.join(tmp, "fstab"), mnt], check=True)
        mounted = True
        threading.Thread(target=workload, args=(mnt, os.path.join(tmp, "synced"), stop),
                         daemon=True).start()

        exp_port = free_port()
        procs.append(subprocess.Popen(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
             os.environ["OEX_BIN"]] + exporter_args(exp_port, mnt)))
        prom_port = free_port()
        cfg = os.path.join(tmp, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "  evaluation_interval: 1s\n"
                    f"rule_files: ['{RULES}']\n"
                    "scrape_configs:\n  - job_name: osprof\n    static_configs:\n"
                    f"      - targets: ['127.0.0.1:{exp_port}']\n")
        procs.append(subprocess.Popen(
            [PROM, "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
             f"--web.listen-address=127.0.0.1:{prom_port}",
             "--enable-feature=native-histograms", "--log.level=warn"]))

        # Ten scrapes, so that rates over 10 s have their two samples.
        t0 = time.time()
        while time.time() - t0 < 60:
            ans = query(prom_port, "/api/v1/query",
                        {"query": "min(count_over_time(osprof_source_up[1m]))"})
            ok = ans.get("status") == "success" and ans["data"]["result"]
            if ok and float(ans["data"]["result"][0]["value"][1]) >= 10:
                break
            time.sleep(0.5)
        else:
            fail("no ten scrapes in 60 s: " +
                 json.dumps(query(prom_port, "/api/v1/targets", {}))[:2000])
            return 1
        print(f"ten scrapes after {time.time() - t0:.1f} s", file=sys.stderr)

        sample = {"instance": f"127.0.0.1:{exp_port}", "mount": mnt,
                  "layer": "fs", "op": "read", "__rate_interval": "10s",
                  "datasource": "prometheus"}
        # Each variable's query offers the sample value.
        for v in dash["templating"]["list"]:
            if v["type"] != "query":
                continue
            m = re.fullmatch(r"label_values\((.*), (\w+)\)", v["query"]["query"])
            if not m:
                fail(f"variable {v['name']}: not label_values(SELECTOR, LABEL)")
                continue
            ans = query(prom_port, f"/api/v1/label/{m.group(2)}/values",
                        {"match[]": substitute(m.group(1), sample)})
            vals = ans.get("data") or []
            if sample[v["name"]] not in vals:
                fail(f"variable {v['name']}: {m.group(1)} offers {vals}, not {sample[v['name']]}")
        # Every panel's expression and every recording rule answers.
        checks = [(f"panel '{t}'", substitute(e, sample)) for t, e in exprs]
        checks += [(f"rule {r}", r) for r in records]
        for what, e in checks:
            ok, why = finite_result(query(prom_port, "/api/v1/query", {"query": e}))
            print(f"{'ok' if ok else 'FAIL'}: {what}: {e}: {why}", file=sys.stderr)
            if not ok:
                fail(f"{what}: {e}: {why}")
    finally:
        stop.set()
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if mounted:
            time.sleep(0.1)
            if subprocess.run(["umount", mnt]).returncode != 0:
                subprocess.run(["umount", "-l", mnt])
        subprocess.run(["umount", "/usr/local/bin"])
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
