//! `workspace-conformance`: certify an implementation of the Workspace Communications API.

fn main() -> std::process::ExitCode {
    // glibc gives each thread that allocates an arena of its own, up to eight per core: with a
    // run's 48 trial threads and the runtime's workers, their free space became most of the
    // peak memory. Two arenas are enough for two cores' worth of work.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
    workspace_conformance::app::main()
}
