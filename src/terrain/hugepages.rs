//! Large zeroed buffers backed by transparent huge pages where Linux
//! offers them on request (`madvise` mode).
//!
//! A fresh 1025² mesh is about 59 MB; with 4 KiB pages its first touch is
//! some 15,000 page faults, which on a virtual machine costs more than
//! filling the buffers. Asking for 2 MiB pages turns that into a few dozen.
//! The advice changes only how memory is mapped, never its contents.

/// `vec![T::default(); len]` for all-zero `T`, with huge pages advised
/// before the memory is first touched.
pub fn zeroed_vec<T: Copy + Default>(len: usize) -> Vec<T> {
    let v = vec![T::default(); len];
    advise_huge(&v);
    v
}

/// Below this, huge pages cannot help.
const HUGE_PAGE: usize = 2 << 20;

#[cfg(target_os = "linux")]
fn advise_huge<T>(v: &[T]) {
    let bytes = std::mem::size_of_val(v);
    if bytes < 2 * HUGE_PAGE {
        return;
    }
    let start = v.as_ptr() as usize;
    let aligned = start.next_multiple_of(HUGE_PAGE);
    let len = (start + bytes - aligned) / HUGE_PAGE * HUGE_PAGE;
    if len == 0 {
        return;
    }
    // SAFETY: the range lies inside the live allocation `v`; MADV_HUGEPAGE
    // is advice about how to back it and cannot change its contents. A
    // failure (no THP support) just leaves ordinary pages.
    unsafe {
        libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge<T>(_: &[T]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_at_any_size() {
        for len in [0, 1, 1000, 3 << 20] {
            let v: Vec<f32> = zeroed_vec(len);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|&x| x == 0.0));
        }
        let v: Vec<[f32; 3]> = zeroed_vec(2 << 20);
        assert!(v.iter().all(|p| *p == [0.0; 3]));
    }
}
