//! Keeps freed large buffers in the process for the next regeneration.
//!
//! Regenerating a 1025² terrain allocates some 90 MB of buffers (stage
//! maps, splat, mesh). By default glibc gives much of that back to the
//! kernel when it is freed: it trims free memory at the top of its heaps,
//! maps a large buffer afresh until one of that size has been freed, and
//! gives other threads (the viewer's regeneration job) arenas too small
//! to hold such buffers, so they are mapped afresh every time. Fresh pages
//! are zeroed by the kernel on first touch: at 1025² that was a sixth of
//! the whole run. Kept in one heap, freed buffers are reused instead, and
//! buffers that are filled whole are taken uninitialised
//! (huge pages rounded up), so reuse costs
//! nothing. Only how memory is obtained changes, never any value.

/// Tunes the allocator once, before the first large allocation: the
/// binary, the benches and the soak test call it first thing, so every
/// figure is measured with the same settings. A no-op off glibc.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes allocator parameters; a rejected
    // value leaves the default in place.
    unsafe {
        // Largest buffers still served from the heap: glibc's ceiling
        // (32 MiB on 64-bit), above a 1025² mesh's largest buffer.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        // Never hand freed memory at the heap's top back to the kernel.
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
        // One heap: the regeneration job's thread would otherwise get its
        // own arena, which maps buffers this large afresh.
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}
