"""Checks that the Kubernetes manifests under deploy/kubernetes/ fit toolgate and each other.

Usage: python check_manifests.py path/to/toolgate deploy/kubernetes

For every directory (one deployment layout each), beyond what the Kubernetes schemas say:
the ConfigMap's toolgate.yaml passes `toolgate check` with every `${VAR}` it names set,
and each of those variables comes from the pod's `env` or from the Secret the manifest
tells the operator to create; the probes reach /readyz and /healthz with a Host toolgate
admits; the ports agree; the pod runs as the image's user on a read-only root file
system with no capabilities; the grace period covers preStop, gateway.shutdown_delay and gateway.drain; the
SQLite store (if any) is on a writable volume; a fleet shares PostgreSQL and Redis and
has a PodDisruptionBudget that selects its pods.
"""

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

IMAGE_USER = 65532
LOOPBACK = {"localhost", "127.0.0.1", "::1"}
failures = []


def fail(where, message):
    failures.append(f"{where}: {message}")


def seconds(duration):
    """A toolgate duration (`30s`, `1m`, `500ms`) in seconds."""
    m = re.fullmatch(r"(\d+)(ms|s|m|h)", str(duration))
    if not m:
        raise ValueError(f"not a duration: {duration!r}")
    return int(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def check_layout(toolgate, directory):
    where = directory.name
    docs = []
    for f in sorted(directory.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(f.read_text()) if d]
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    deployments = by_kind.get("Deployment", [])
    if len(deployments) != 1:
        fail(where, f"expected one Deployment, found {len(deployments)}")
        return
    deployment = deployments[0]
    pod = deployment["spec"]["template"]["spec"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    (container,) = pod["containers"]

    # The config: mounted from the ConfigMap at the path the image reads.
    config_maps = {c["metadata"]["name"]: c for c in by_kind.get("ConfigMap", [])}
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = {m["mountPath"]: m for m in container.get("volumeMounts", [])}
    config_mount = mounts.get("/etc/toolgate")
    if not config_mount:
        fail(where, "nothing is mounted at /etc/toolgate, where the image's TOOLGATE_CONFIG points")
        return
    cm_name = volumes[config_mount["name"]].get("configMap", {}).get("name")
    if cm_name not in config_maps or "toolgate.yaml" not in config_maps[cm_name].get("data", {}):
        fail(where, f"/etc/toolgate is not a ConfigMap of this layout with a toolgate.yaml ({cm_name!r})")
        return
    text = config_maps[cm_name]["data"]["toolgate.yaml"]
    config = yaml.safe_load(text)
    gateway = config.get("gateway", {})

    # Every variable the config names comes from the pod's env or the documented Secret.
    wanted = set(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", text))
    for named in ("auth_token_env", "session_key_env", "session_key_previous_env"):
        if gateway.get(named):
            wanted.add(gateway[named])
    from_env = {e["name"] for e in container.get("env", [])}
    secret_refs = [s["secretRef"]["name"] for s in container.get("envFrom", []) if "secretRef" in s]
    deployment_text = (directory / "deployment.yaml").read_text()
    documented = set(re.findall(r"--from-literal=([A-Za-z_][A-Za-z0-9_]*)=", deployment_text))
    if secret_refs and not re.search(r"create secret generic " + re.escape(secret_refs[0]), deployment_text):
        fail(where, f"the Secret {secret_refs[0]!r} is referenced but how to create it is not said")
    missing = wanted - from_env - documented
    if missing:
        fail(where, f"the config needs {sorted(missing)}, which neither env nor the Secret provides")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "toolgate.yaml"
        path.write_text(text)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        # Long enough for a session key (32 bytes at least).
        env.update({name: f"test-{name.lower()}-value".ljust(40, "x") for name in wanted})
        run = subprocess.run([toolgate, "check", "-c", str(path)], env=env, capture_output=True, text=True)
        if run.returncode != 0:
            fail(where, f"toolgate check failed:\n{run.stdout}{run.stderr}")
        else:
            print(f"{where}: toolgate check passed ({run.stdout.strip().splitlines()[-1] if run.stdout.strip() else 'ok'})")

    # Ports: the listener on all interfaces, the container port and the Service agree.
    listen = str(gateway.get("listen", "127.0.0.1:8765"))
    host, _, port = listen.rpartition(":")
    if host not in ("0.0.0.0", "[::]"):
        fail(where, f"gateway.listen {listen} is not reachable from outside the pod")
    ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
    if ports.get("http") != int(port):
        fail(where, f"containerPort http {ports.get('http')} is not gateway.listen's port {port}")
    services = by_kind.get("Service", [])
    if not services:
        fail(where, "no Service")
    allowed = LOOPBACK | set(gateway.get("allowed_hosts", []))
    for s in services:
        if s["spec"]["selector"].items() - labels.items():
            fail(where, f"Service {s['metadata']['name']} selects no pod of the Deployment")
        if not any(p.get("targetPort") in ("http", int(port)) for p in s["spec"]["ports"]):
            fail(where, f"Service {s['metadata']['name']} does not target the http port")
        if s["metadata"]["name"] not in allowed:
            fail(where, f"Service name {s['metadata']['name']} is not in gateway.allowed_hosts: clients using it get 403")

    # Probes: the right paths, on the http port, with a Host toolgate admits.
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        get = container.get(probe, {}).get("httpGet")
        if not get or get.get("path") != path or get.get("port") not in ("http", int(port)):
            fail(where, f"{probe} is not an httpGet of {path} on the http port")
            continue
        hosts = [h["value"] for h in get.get("httpHeaders", []) if h["name"].lower() == "host"]
        if not hosts or hosts[0].rsplit(":", 1)[0] not in allowed:
            fail(where, f"{probe} sends the pod IP as Host, which toolgate refuses with 403")

    # Security: the image's user, read-only root file system, no capabilities.
    psc, csc = pod.get("securityContext", {}), container.get("securityContext", {})
    if not psc.get("runAsNonRoot") or psc.get("runAsUser") != IMAGE_USER:
        fail(where, f"the pod must run as non-root user {IMAGE_USER}")
    if not csc.get("readOnlyRootFilesystem") or csc.get("allowPrivilegeEscalation") is not False:
        fail(where, "the container must have a read-only root file system and no privilege escalation")
    if csc.get("capabilities", {}).get("drop") != ["ALL"]:
        fail(where, "the container must drop ALL capabilities")

    # Shutdown: endpoints drain during preStop, then toolgate drains its calls.
    sleep = container.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
    drain = seconds(gateway.get("drain", "30s"))
    delay = seconds(gateway.get("shutdown_delay", "5s"))
    grace = pod.get("terminationGracePeriodSeconds", 30)
    if sleep <= 0:
        fail(where, "no preStop sleep: balancers may still send requests after SIGTERM")
    if grace <= sleep + delay + drain:
        fail(where, f"terminationGracePeriodSeconds {grace} does not cover preStop {sleep} s + shutdown_delay {delay} s + drain {drain} s")

    # State: SQLite on a writable volume; a fleet on PostgreSQL and Redis, with a PDB.
    state = str(gateway.get("state", ".toolgate/state.db"))
    replicas = deployment["spec"].get("replicas", 1)
    if state.startswith(("postgres://", "postgresql://")):
        if not str(gateway.get("shared", "")).startswith("redis://"):
            fail(where, "replicas share PostgreSQL but not Redis (gateway.shared): each paces quota alone")
        if replicas < 2:
            fail(where, "a PostgreSQL store for a single replica")
        pdbs = by_kind.get("PodDisruptionBudget", [])
        if not pdbs or any(p["spec"]["selector"]["matchLabels"].items() - labels.items() for p in pdbs):
            fail(where, "a fleet needs a PodDisruptionBudget selecting its pods")
    else:
        if not state.startswith("/") or not any(state.startswith(m.rstrip("/") + "/") for m in mounts if m != "/etc/toolgate"):
            fail(where, f"the SQLite store {state} is not on a mounted volume (the root file system is read-only)")
        if replicas != 1 or deployment["spec"].get("strategy", {}).get("type") != "Recreate":
            fail(where, "a SQLite store takes exactly one replica, replaced with strategy Recreate")


def main():
    toolgate, root = sys.argv[1], Path(sys.argv[2])
    layouts = sorted(d for d in root.iterdir() if d.is_dir())
    if not layouts:
        sys.exit(f"no layouts under {root}")
    for d in layouts:
        check_layout(toolgate, d)
    for f in failures:
        print(f"FAIL {f}")
    if failures:
        sys.exit(1)
    print(f"{len(layouts)} layouts agree with toolgate: {', '.join(d.name for d in layouts)}")


if __name__ == "__main__":
    main()
