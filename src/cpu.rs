//! Hints to the processor: [`prefetch`] brings data into the caches ahead of a read
//! that would otherwise miss (rows read in an order other than their memory's).

/// Asks the processor to bring `items` into its caches, a cache line at a time; nothing
/// on processors other than x86-64. A hint: it changes no result.
#[inline]
pub fn prefetch<T>(items: &[T]) {
    #[cfg(target_arch = "x86_64")]
    for at in (0..std::mem::size_of_val(items)).step_by(64) {
        // SAFETY: `at` is inside `items`; a prefetch is a hint that reads nothing into
        // the program and faults on no address.
        unsafe {
            let line = items.as_ptr().cast::<i8>().add(at);
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(line);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = items;
}
