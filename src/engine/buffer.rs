//! Page-aligned I/O buffers.

use std::alloc::{Layout, alloc_zeroed, dealloc};

/// A heap buffer aligned to a page, as O_DIRECT requires. Allocated once,
/// before timing; never grows.
pub struct AlignedBuf {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBuf {}

const ALIGN: usize = 4096;

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes (at least one page).
    pub fn new(len: usize) -> Self {
        let len = len.max(ALIGN).next_multiple_of(ALIGN);
        let layout = Layout::from_size_align(len, ALIGN).expect("buffer size fits a Layout");
        // SAFETY: the layout has non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuf { ptr, len }
    }

    /// A buffer filled with incompressible bytes from `seed`.
    pub fn random(len: usize, seed: u64) -> Self {
        let mut b = Self::new(len);
        crate::data::fill_random(&mut b, seed);
        b
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr is valid for len initialised (zeroed) bytes for our lifetime.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in Deref, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        let layout = Layout::from_size_align(self.len, ALIGN).expect("same layout as alloc");
        // SAFETY: ptr came from alloc_zeroed with this layout.
        unsafe { dealloc(self.ptr, layout) }
    }
}

/// `depth` buffers of `max_len` bytes each, filled with incompressible bytes.
pub(crate) fn slots(depth: u16, max_len: usize, seed: u64) -> Vec<AlignedBuf> {
    (0..depth.max(1))
        .map(|i| AlignedBuf::random(max_len, seed ^ ((i as u64) << 48)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_sized() {
        let b = AlignedBuf::new(5000);
        assert_eq!(b.as_ptr() as usize % ALIGN, 0);
        assert_eq!(b.len(), 8192);
        let r = AlignedBuf::random(4096, 1);
        assert!(
            r.iter().filter(|&&x| x == 0).count() < 64,
            "random, not zero"
        );
    }
}
