//! Large buffers backed by transparent huge pages where Linux
//! offers them on request (`madvise` mode).
//!
//! A fresh 1025² mesh is about 59 MB; with 4 KiB pages its first touch is
//! some 15,000 page faults, which on a virtual machine costs more than
//! filling the buffers. Asking for 2 MiB pages turns that into a few dozen.
//! The advice changes only how memory is mapped, never its contents.

/// An empty vector with room for `len` values, huge pages advised before
/// the memory is first touched. For buffers that are then written whole
/// in parallel: no serial zeroing first, and the page faults are spread
/// over the threads that write.
pub fn huge_capacity<T>(len: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    advise_huge(v.spare_capacity_mut());
    v
}

/// A vector of `len` default values (zeros) on huge pages, cleared by all
/// threads: for large buffers a stage or an export then fills, whose
/// page faults and clearing would otherwise fall on one thread.
pub fn zeroed_in_parallel<T: Copy + Default + Send>(len: usize) -> Vec<T> {
    use rayon::prelude::*;
    let mut v = huge_capacity(len);
    v.spare_capacity_mut()[..len]
        .par_chunks_mut(1 << 16)
        .for_each(|chunk| {
            for x in chunk {
                x.write(T::default());
            }
        });
    // SAFETY: the chunks cover all `len` values and each one is written.
    unsafe { v.set_len(len) };
    v
}

/// `len` zeros that cost nothing until touched: large buffers come from
/// the kernel already zero (`calloc` maps them), advised onto huge pages,
/// so the first stage to touch a page pays one fault per 2 MiB, on
/// whichever thread touches it. Clearing them in advance (as
/// [`zeroed_in_parallel`] does) would zero every page twice, once in the
/// kernel and once in the clearing loop; and without huge pages a stage
/// that reads before it writes pays a copy-on-write fault per 4 KiB.
pub fn lazily_zeroed_f32(len: usize) -> Vec<f32> {
    lazily_zeroed(len)
}

/// [`lazily_zeroed_f32`] for any number type (`u8`, `u32`, `f32`, …:
/// those whose `vec![0; n]` the standard library allocates zeroed).
pub fn lazily_zeroed<T: Clone + Default>(len: usize) -> Vec<T> {
    // `vec![0; n]` of a number type allocates zeroed memory (no loop
    // writes the zeros).
    let v = vec![T::default(); len];
    advise_huge(&v);
    v
}

/// `len` copies of `value` on huge pages, written by all threads.
pub fn filled_with<T: Copy + Send + Sync>(len: usize, value: T) -> Vec<T> {
    filled_in_parallel(len, 1 << 16, |_, chunk| {
        for slot in chunk {
            slot.write(value);
        }
    })
}

/// A vector of `len` values made by `fill`, which writes every slot of
/// the chunks it is given (chunk `i` holds values `i·chunk ..`), on all
/// threads, into huge-page memory touched only by those writes.
pub fn filled_in_parallel<T: Send>(
    len: usize,
    chunk: usize,
    fill: impl Fn(usize, &mut [std::mem::MaybeUninit<T>]) + Sync,
) -> Vec<T> {
    let mut v = huge_capacity(len);
    fill_chunks(&mut v.spare_capacity_mut()[..len], chunk, &fill);
    // SAFETY: `fill` writes every slot of every chunk (its contract), and
    // the chunks cover all `len` slots.
    unsafe { v.set_len(len) };
    v
}

/// Hands `slots` to `fill` in chunks of `chunk`, numbered, on all threads.
fn fill_chunks<T: Send>(
    slots: &mut [std::mem::MaybeUninit<T>],
    chunk: usize,
    fill: &(impl Fn(usize, &mut [std::mem::MaybeUninit<T>]) + Sync),
) {
    use rayon::prelude::*;
    slots
        .par_chunks_mut(chunk.max(1))
        .enumerate()
        .for_each(|(i, c)| fill(i, c));
}

/// Bytes of a memory page: the alignment a direct (uncached) file write
/// needs of its buffer.
pub const PAGE_BYTES: usize = 4096;

/// Values whose first one starts on a page boundary, so their bytes can be
/// written to a file directly, without the kernel copying them (the
/// atomic writes of the `io` module do).
pub struct PageAligned<T> {
    buf: Vec<T>,
    start: usize,
}

impl<T> std::ops::Deref for PageAligned<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.buf[self.start..]
    }
}

impl AsRef<[u8]> for PageAligned<u8> {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// [`filled_in_parallel`], page-aligned: the buffer has a page of slack and
/// the values start at its first page boundary.
pub fn page_aligned_in_parallel<T: Send + Default>(
    len: usize,
    chunk: usize,
    fill: impl Fn(usize, &mut [std::mem::MaybeUninit<T>]) + Sync,
) -> PageAligned<T> {
    let slack = PAGE_BYTES.div_ceil(std::mem::size_of::<T>().max(1));
    let mut buf: Vec<T> = huge_capacity(len + slack);
    let start = match buf.as_ptr().align_offset(PAGE_BYTES) {
        offset if offset <= slack => offset,
        _ => 0,
    };
    let slots = &mut buf.spare_capacity_mut()[..start + len];
    let (before, values) = slots.split_at_mut(start);
    for slot in before {
        slot.write(T::default());
    }
    fill_chunks(values, chunk, &fill);
    // SAFETY: the slots before `start` were written above; `fill` writes
    // every slot of every chunk (its contract), and the chunks cover the
    // `len` slots from `start`.
    unsafe { buf.set_len(start + len) };
    PageAligned { buf, start }
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
    fn lazy_zeros_and_parallel_fills_hold_what_they_promise() {
        for len in [0, 1, 1000, 3 << 20] {
            let zeros = lazily_zeroed_f32(len);
            assert_eq!(zeros.len(), len);
            assert!(zeros.iter().all(|&v| v.to_bits() == 0));
            let filled: Vec<u32> = filled_in_parallel(len, 1 << 12, |i, chunk| {
                for (j, slot) in chunk.iter_mut().enumerate() {
                    slot.write(((i << 12) + j) as u32);
                }
            });
            assert!(filled.iter().enumerate().all(|(k, &v)| v == k as u32));
        }
    }

    #[test]
    fn page_aligned_values_start_on_a_page_and_hold_every_value() {
        for len in [0, 1, 5000, 3 << 20] {
            let v: PageAligned<u16> = page_aligned_in_parallel(len, 1 << 10, |i, chunk| {
                for (j, slot) in chunk.iter_mut().enumerate() {
                    slot.write(((i << 10) + j) as u16);
                }
            });
            assert_eq!(v.len(), len);
            assert_eq!(v.as_ptr() as usize % PAGE_BYTES, 0);
            assert!(v.iter().enumerate().all(|(k, &x)| x == k as u16));
        }
    }

    #[test]
    fn capacity_is_reserved_at_any_size() {
        for len in [0, 1, 1000, 3 << 20] {
            let v: Vec<[f32; 3]> = huge_capacity(len);
            assert!(v.is_empty());
            assert!(v.capacity() >= len);
        }
    }
}
