#!/usr/bin/env bash
# Render every kustomization under deploy/ (the base and each overlay) and validate what it
# renders, then prove the checks catch mistakes.
#
# 1. Render with kustomize's own Go API (pykustomize, a shared library of
#    sigs.k8s.io/kustomize/api; the same output as `kubectl kustomize`).
# 2. kubernetes-validate --strict (unknown fields refused) against every Kubernetes version from
#    the minimum, read from the "Minimum Kubernetes version: X.Y" line of
#    deploy/base/kustomization.yaml, to the newest one kubernetes-validate knows. It has no
#    schema for custom resources and only warns about them: a warning fails here, except for
#    the ServiceMonitor, which step 3 validates.
# 3. The ServiceMonitor against the JSON schema of cloudcoil-models-prometheus-operator's
#    ServiceMonitor model (generated from the Prometheus operator's CRD), made strict the same
#    way: unknown fields refused.
# 4. What no schema sees, across the objects: every selector selects the pods (and the
#    Deployment's selects by name and instance only); the HPA scales that Deployment; the
#    Service, probes, NetworkPolicy, ServiceMonitor and prometheus.io annotations name ports
#    that exist; one scrape mechanism (no prometheus.io annotations beside a ServiceMonitor);
#    requests equal limits; WORKERS and EVENT_LOOPS equal the CPU limit; egress is
#    denied; the version label is the image tag; one namespace, and the overlay's Namespace
#    object is that one.
# 5. Self-check: copies of deploy/ with one deliberate mistake each (a misspelled Deployment
#    field, a misspelled ServiceMonitor field, a misspelled kind, a Service port that names no
#    container port, the scrape annotations kept beside the ServiceMonitor) must fail steps 2,
#    3, 2, 4 and 4 with the mistake named.
#
# Usage: scripts/ci/deploy-check.sh [--python PYTHON] [--out DIR]
#   --python  a Python with the tools, as .ci/run installs them in its venv (default:
#             .build-ci/venv/bin/python when it exists, else python3):
#               pip install kubernetes-validate==1.37.0 cffi==2.0.0 cloudcoil==0.6.0 \
#                 cloudcoil-models-prometheus-operator==0.80.1.0
#               pip install --no-deps --ignore-requires-python pykustomize==0.1.4
#             (pykustomize declares Python >= 3.14 but runs on 3.11: its code is 3.9+ and
#             its library is Go's.)
#   --out     keep the rendered manifests in DIR (base.yaml, production.yaml, ...); by
#             default they go to a temporary folder, removed at exit.
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
python=""
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --python) python="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--python PYTHON] [--out DIR]" >&2; exit 2 ;;
  esac
done
if [[ -z "${python}" ]]; then
  if [[ -x "${repo}/.build-ci/venv/bin/python" ]]; then python="${repo}/.build-ci/venv/bin/python"; else python=python3; fi
fi

work_dir
[[ -n "${out}" ]] || out="${work}/rendered"
mkdir -p "${out}"

# The Python half: render, describe the tools, check a rendered manifest (steps 3 and 4).
helper="${work}/deploy_check.py"
cat >"${helper}" <<'PY'
import asyncio
import importlib.metadata
import json
import re
import sys

import yaml


def render(directory):
    import pykustomize
    sys.stdout.write(asyncio.run(pykustomize.build(directory)).yaml)


def tools(schema_file):
    """Print the tools' versions; write the strict ServiceMonitor schema to schema_file."""
    import jsonschema  # noqa: F401 (check() needs it)
    import kubernetes_validate.utils
    import pykustomize._ffi
    from cloudcoil.models.prometheus_operator.v1 import ServiceMonitor
    schema = ServiceMonitor.model_json_schema(by_alias=True, mode="validation")
    strict(schema)
    with open(schema_file, "w") as f:
        json.dump(schema, f)
    with open(pykustomize._ffi._find_library(), "rb") as f:
        found = re.search(rb"sigs\.k8s\.io/kustomize/api@(v[0-9.]+)", f.read())
    print("kustomize: pykustomize %s (sigs.k8s.io/kustomize/api %s)"
          % (importlib.metadata.version("pykustomize"), found.group(1).decode() if found else "?"))
    print("kubernetes-validate %s: Kubernetes %s to %s"
          % (importlib.metadata.version("kubernetes-validate"),
             kubernetes_validate.utils.all_versions()[0], kubernetes_validate.utils.latest_version()))
    print("ServiceMonitor schema: cloudcoil-models-prometheus-operator %s"
          % importlib.metadata.version("cloudcoil-models-prometheus-operator"))


def versions(minimum):
    """The Kubernetes versions kubernetes-validate knows, from the minimum on."""
    import kubernetes_validate.utils
    floor = tuple(map(int, minimum.split(".")))
    known = sorted(set(kubernetes_validate.utils.all_versions()), key=lambda v: tuple(map(int, v.split("."))))
    if floor < tuple(map(int, known[0].split(".")[:2])):
        sys.exit("kubernetes-validate knows Kubernetes %s and later, not %s" % (known[0], minimum))
    print(" ".join(v for v in known if tuple(map(int, v.split(".")[:2])) >= floor))


def strict(schema):
    """Refuse unknown fields in every object schema that lists its fields, as the API server
    does under kubectl's default strict field validation; maps stay open."""
    if isinstance(schema, list):
        for item in schema:
            strict(item)
        return
    if not isinstance(schema, dict):
        return
    if "properties" in schema:
        schema.setdefault("additionalProperties", False)
        for sub in schema["properties"].values():
            strict(sub)
    for key in ("$defs", "patternProperties"):
        for sub in schema.get(key, {}).values():
            strict(sub)
    for key in ("items", "additionalProperties", "anyOf", "allOf", "oneOf", "prefixItems", "not"):
        if key in schema:
            strict(schema[key])


def service_monitor_errors(obj, schema_file):
    import jsonschema
    with open(schema_file) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))

    def cause(e):
        # A field's schema is "anyOf: [its type, null]": name what failed inside, not the anyOf.
        while e.context:
            e = jsonschema.exceptions.best_match([c for c in e.context if c.validator != "type" or c.validator_value != "null"] or e.context)
        return e

    return ["servicemonitor/%s: %s: %s" % (obj["metadata"]["name"], ".".join(map(str, e.absolute_path)) or "(top)", e.message)
            for e in sorted(map(cause, validator.iter_errors(obj)), key=lambda e: list(map(str, e.absolute_path)))]


def cores(quantity):
    q = str(quantity)
    return int(q[:-1]) / 1000 if q.endswith("m") else float(q)


def byte_count(quantity):
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
    m = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(quantity))
    if not m or m.group(2) not in units and m.group(2):
        raise ValueError("memory quantity %r" % quantity)
    return float(m.group(1)) * units.get(m.group(2), 1)


def check(path, schema_file):
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    errors = []
    kinds = {}
    for d in docs:
        kinds.setdefault(d["kind"], []).append(d)

    def one(kind):
        found = kinds.get(kind, [])
        if len(found) != 1:
            errors.append("%d %s objects, expected 1" % (len(found), kind))
            return None
        return found[0]

    dep, svc, hpa, pdb, netpol = (one(k) for k in (
        "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy"))
    monitors = kinds.get("ServiceMonitor", [])
    for sm in monitors:
        errors += service_monitor_errors(sm, schema_file)
    if None in (dep, svc, hpa, pdb, netpol):
        return errors

    spaces = {d["metadata"].get("namespace") for d in docs if d["kind"] != "Namespace"}
    if len(spaces) != 1:
        errors.append("objects in several namespaces: %s" % sorted(map(str, spaces)))
    for ns in kinds.get("Namespace", []):
        if ns["metadata"]["name"] not in spaces:
            errors.append("namespace/%s is not the objects' namespace %s" % (ns["metadata"]["name"], sorted(map(str, spaces))))

    template = dep["spec"]["template"]
    pod_labels = template["metadata"].get("labels", {})

    def selects(what, selector, labels):
        if "matchExpressions" in selector:
            errors.append("%s: matchExpressions, which this check does not evaluate" % what)
        match = selector.get("matchLabels", {})
        if not match:
            errors.append("%s: empty selector" % what)
        for k, v in match.items():
            if labels.get(k) != v:
                errors.append("%s: %s=%s does not select the pods (their labels: %s)" % (what, k, v, labels))

    stable = {"app.kubernetes.io/name", "app.kubernetes.io/instance"}
    if set(dep["spec"]["selector"].get("matchLabels", {})) != stable:
        errors.append("deployment selector: %s, expected exactly %s (it cannot change after the first apply)"
                      % (sorted(dep["spec"]["selector"].get("matchLabels", {})), sorted(stable)))
    selects("deployment selector", dep["spec"]["selector"], pod_labels)
    selects("service selector", {"matchLabels": svc["spec"].get("selector", {})}, pod_labels)
    selects("poddisruptionbudget selector", pdb["spec"]["selector"], pod_labels)
    selects("networkpolicy podSelector", netpol["spec"]["podSelector"], pod_labels)
    for i, tsc in enumerate(template["spec"].get("topologySpreadConstraints", [])):
        selects("topologySpreadConstraints[%d]" % i, tsc["labelSelector"], pod_labels)

    containers = template["spec"]["containers"]
    if len(containers) != 1:
        errors.append("%d containers, expected 1" % len(containers))
    c = containers[0]
    ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}

    def names_port(what, port):
        if port not in ports and port not in ports.values():
            errors.append("%s: port %r is not a container port (%s)" % (what, port, ports))

    for p in svc["spec"]["ports"]:
        names_port("service port %s targetPort" % p.get("name"), p.get("targetPort", p["port"]))
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        if probe in c and "httpGet" in c[probe]:
            names_port(probe, c[probe]["httpGet"]["port"])
    for rule in netpol["spec"].get("ingress", []):
        if not rule.get("ports"):
            errors.append("networkpolicy: an ingress rule without ports admits every port")
        for p in rule.get("ports", []):
            names_port("networkpolicy ingress", p["port"])
    if "Egress" not in netpol["spec"].get("policyTypes", []) or netpol["spec"].get("egress"):
        errors.append("networkpolicy: egress must be denied (policyTypes Egress, no egress rules)")
    annotations = template["metadata"].get("annotations", {})
    if "prometheus.io/port" in annotations:
        names_port("prometheus.io/port annotation", int(annotations["prometheus.io/port"]))

    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    if env.get("PORT") is not None:
        names_port("PORT", int(env["PORT"]))
    res = c.get("resources", {})
    req, lim = res.get("requests", {}), res.get("limits", {})
    for r, unit in (("cpu", cores), ("memory", byte_count)):
        if r not in req or r not in lim or unit(req[r]) != unit(lim[r]):
            errors.append("resources: %s request %s != limit %s (request = limit: Guaranteed QoS)" % (r, req.get(r), lim.get(r)))
    if "cpu" in lim:
        for name in ("WORKERS", "EVENT_LOOPS"):
            if env.get(name) is None or float(env[name]) != cores(lim["cpu"]):
                errors.append("%s=%s, expected the CPU limit %s" % (name, env.get(name), lim["cpu"]))

    ref = hpa["spec"]["scaleTargetRef"]
    if (ref.get("apiVersion"), ref["kind"], ref["name"]) != ("apps/v1", "Deployment", dep["metadata"]["name"]):
        errors.append("horizontalpodautoscaler scales %s, not deployment/%s" % (ref, dep["metadata"]["name"]))
    lo, hi = hpa["spec"].get("minReplicas", 1), hpa["spec"]["maxReplicas"]
    if not 1 <= lo <= hi or not lo <= dep["spec"].get("replicas", 1) <= hi:
        errors.append("replicas %s outside the autoscaler's %d-%d" % (dep["spec"].get("replicas"), lo, hi))

    if monitors and any(k.startswith("prometheus.io/") for k in annotations):
        errors.append("prometheus.io annotations %s beside a ServiceMonitor: a Prometheus that uses both "
                      "scrapes each pod twice (the servicemonitor component removes them)"
                      % sorted(k for k in annotations if k.startswith("prometheus.io/")))
    for sm in monitors:
        selects("servicemonitor selector", sm["spec"]["selector"], svc["metadata"].get("labels", {}))
        for ep in sm["spec"]["endpoints"]:
            if ep.get("port") not in [p.get("name") for p in svc["spec"]["ports"]]:
                errors.append("servicemonitor endpoint port %r is not a service port name" % ep.get("port"))
            if annotations.get("prometheus.io/path", ep.get("path")) != ep.get("path"):
                errors.append("servicemonitor path %r != prometheus.io/path %r" % (ep.get("path"), annotations["prometheus.io/path"]))

    image = c["image"].split("@")[0]
    tag = image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else None
    recommended = ("name", "instance", "version", "component", "part-of", "managed-by")
    for d in docs + [dict(kind="pod template of", metadata=dict(name="deployment", labels=pod_labels))]:
        if d["kind"] == "Namespace":
            continue
        labels = d["metadata"].get("labels", {})
        missing = [k for k in recommended if "app.kubernetes.io/" + k not in labels]
        if missing:
            errors.append("%s/%s: no app.kubernetes.io/ %s label" % (d["kind"].lower(), d["metadata"]["name"], ", ".join(missing)))
        if tag and labels.get("app.kubernetes.io/version", tag) != tag:
            errors.append("%s/%s: version label %s, image tag %s"
                          % (d["kind"].lower(), d["metadata"]["name"], labels["app.kubernetes.io/version"], tag))
    return errors


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "render":
        render(args[0])
    elif command == "tools":
        tools(args[0])
    elif command == "versions":
        versions(args[0])
    elif command == "check":
        problems = check(args[0], args[1])
        for p in problems:
            print("ERROR %s: %s" % (args[0], p))
        sys.exit(1 if problems else 0)
    else:
        sys.exit("unknown command " + command)
PY

schema="${work}/servicemonitor.schema.json"
"${python}" "${helper}" tools "${schema}" || die "${python} lacks the tools: see the usage at the top of $0"

min="$(sed -n 's/^# Minimum Kubernetes version: \([0-9][0-9]*\.[0-9][0-9]*\)[^0-9].*/\1/p' "${repo}/deploy/base/kustomization.yaml")"
[[ "${min}" =~ ^[0-9]+\.[0-9]+$ ]] || die "no \"# Minimum Kubernetes version: X.Y\" line in deploy/base/kustomization.yaml"
read -r -a versions <<<"$("${python}" "${helper}" versions "${min}")"
((${#versions[@]} > 0)) || die "no Kubernetes version to validate against"
newest="${versions[-1]%.0}"
span="Kubernetes ${min} to ${newest}"
echo "Kubernetes versions checked: ${versions[*]} (the minimum to the newest kubernetes-validate knows)"

k_args=()
for v in "${versions[@]}"; do k_args+=(-k "${v}"); done

# render KUSTOMIZATION_DIR OUTPUT_FILE
render() { "${python}" "${helper}" render "$1" >"$2"; }

# validate FILE: steps 2 to 4; prints what fails, returns non-zero on any failure.
validate() {
  local file=$1 rc=0 report unexpected
  report="$("${python}" -m kubernetes_validate --strict --quiet "${k_args[@]}" "${file}" 2>&1)" || rc=$?
  # Custom resources only warn there: a warning is a failure unless it is the ServiceMonitor.
  unexpected="$(grep -v -E "^WARN .* Couldn't find schema for kind ServiceMonitor with api version monitoring\.coreos\.com/v1 for kubernetes version" <<<"${report}" || true)"
  if [[ -n "${unexpected}" ]]; then printf '%s\n' "${unexpected}"; ((rc != 0)) || rc=1; fi
  "${python}" "${helper}" check "${file}" "${schema}" || rc=1
  return "${rc}"
}

# Steps 1-4 on every kustomization.
failed=0
count=0
for dir in "${repo}/deploy/base" "${repo}"/deploy/overlays/*/; do
  dir="${dir%/}"
  [[ -f "${dir}/kustomization.yaml" ]] || continue
  name="$(basename "${dir}")"
  file="${out}/${name}.yaml"
  render "${dir}" "${file}" || die "kustomize could not render ${dir#"${repo}"/}"
  objects="$(grep -c '^kind: ' "${file}" || true)"
  if validate "${file}"; then
    echo "ok  ${dir#"${repo}"/}: ${objects} objects valid for ${span}"
  else
    echo "FAIL ${dir#"${repo}"/}" >&2
    failed=1
  fi
  count=$((count + 1))
done
((count >= 2)) || die "found ${count} kustomizations under deploy/ (expected deploy/base and overlays)"
((failed == 0)) || die "the manifests above do not validate"

# Step 5: each mistake must be caught, and by name.
# expect_caught LABEL FILE (relative to deploy/) SED-SCRIPT TOKEN
expect_caught() {
  local label=$1 target=$2 script=$3 token=$4 copy report
  copy="${work}/broken-$((++broken))"
  mkdir -p "${copy}"
  cp -R "${repo}/deploy" "${copy}/deploy"
  sed -i -e "${script}" "${copy}/deploy/${target}"
  grep -q -- "${token}" "${copy}/deploy/${target}" || die "self-check '${label}': the edit did not apply to deploy/${target}"
  render "${copy}/deploy/overlays/production" "${copy}/production.yaml" \
    || die "self-check '${label}': the broken copy did not render"
  if report="$(validate "${copy}/production.yaml" 2>&1)"; then
    die "self-check '${label}': validation passed a broken manifest"
  fi
  grep -q -- "${token}" <<<"${report}" \
    || die "self-check '${label}': validation failed, but without naming ${token}: ${report}"
  report="${report//"${copy}/"/}"
  echo "ok  self-check, ${label}: caught: $(grep -m1 -- "${token}" <<<"${report}")"
}
broken=0
expect_caught "misspelled Deployment field" base/deployment.yaml \
  's/terminationGracePeriodSeconds:/terminationGracePeriodSecnds:/' terminationGracePeriodSecnds
expect_caught "misspelled ServiceMonitor field" components/servicemonitor/servicemonitor.yaml \
  's/scrapeTimeout:/scrapeTimout:/' scrapeTimout
expect_caught "misspelled kind" base/poddisruptionbudget.yaml \
  's/^kind: PodDisruptionBudget$/kind: PodDisruptionBudgets/' PodDisruptionBudgets
expect_caught "Service port naming no container port" base/service.yaml \
  's/targetPort: http/targetPort: htpp/' htpp
expect_caught "scrape annotations kept beside the ServiceMonitor" components/servicemonitor/scrape-annotations.yaml \
  's|prometheus.io/scrape: null|prometheus.io/scrape: "true"|' 'prometheus.io/scrape'

echo "deploy-check: OK: ${count} kustomizations rendered and valid for ${span}; ${broken} deliberate mistakes caught"
