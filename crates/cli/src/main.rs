//! `workspace-conformance`: certify an implementation of the Workspace Communications API.

fn main() -> std::process::ExitCode {
    workspace_conformance::app::main()
}
