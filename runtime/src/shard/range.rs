//! Ranges of the 64-bit hash ring: `[start, end)` with `end` up to 2^64, sets of them, the
//! ring cut into equal slots (the unit of assignment and handover), and the `shardSelector`
//! a set of ranges is sent to the API server as.

use std::{collections::BTreeSet, fmt};

use super::hash::ShardKey;

/// 2^64: the exclusive end of the ring.
pub const RING_END: u128 = 1 << 64;

/// A range `[start, end)` of the hash ring (`end` at most 2^64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShardRange {
    /// Inclusive start.
    pub start: u128,
    /// Exclusive end.
    pub end: u128,
}

impl ShardRange {
    /// Whether `hash` lies in the range.
    pub fn contains(&self, hash: u64) -> bool {
        let h = u128::from(hash);
        self.start <= h && h < self.end
    }

    /// The range's share of the ring (0..=1).
    pub fn fraction(&self) -> f64 {
        (self.end - self.start) as f64 / RING_END as f64
    }
}

/// `0x` and 16 lowercase hex digits, or `0x10000000000000000` for 2^64: the only forms the
/// API server accepts as `shardRange` bounds.
pub fn hex_bound(value: u128) -> String {
    if value >= RING_END {
        "0x10000000000000000".to_string()
    } else {
        format!("0x{value:016x}")
    }
}

impl fmt::Display for ShardRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {})", hex_bound(self.start), hex_bound(self.end))
    }
}

/// A set of ring ranges, kept sorted with adjacent ranges merged (so it has as few ranges,
/// and as short a selector, as possible).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: Vec<ShardRange>,
}

impl RangeSet {
    /// No range at all.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The whole ring.
    pub fn full() -> Self {
        Self::from_ranges([ShardRange {
            start: 0,
            end: RING_END,
        }])
    }

    /// The set covering `ranges` (in any order, overlapping or not).
    pub fn from_ranges(ranges: impl IntoIterator<Item = ShardRange>) -> Self {
        let mut sorted: Vec<ShardRange> = ranges.into_iter().filter(|r| r.start < r.end).collect();
        sorted.sort();
        let mut merged: Vec<ShardRange> = Vec::with_capacity(sorted.len());
        for r in sorted {
            match merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        Self { ranges: merged }
    }

    /// The `index`-th of `count` equal contiguous parts of the ring (static sharding).
    pub fn equal_part(index: u32, count: u32) -> Self {
        let count = u128::from(count.max(1));
        let index = u128::from(index).min(count - 1);
        Self::from_ranges([ShardRange {
            start: index * RING_END / count,
            end: (index + 1) * RING_END / count,
        }])
    }

    /// The ranges of `slots` out of `total` equal slots.
    pub fn from_slots<'a>(slots: impl IntoIterator<Item = &'a u16>, total: u16) -> Self {
        Self::from_ranges(slots.into_iter().map(|s| slot_range(*s, total)))
    }

    /// Whether `hash` lies in one of the ranges.
    pub fn contains(&self, hash: u64) -> bool {
        let h = u128::from(hash);
        // Sorted and disjoint: the last range starting at or before `h` is the only candidate.
        let i = self.ranges.partition_point(|r| r.start <= h);
        i > 0 && self.ranges[i - 1].contains(hash)
    }

    /// The ranges, sorted.
    pub fn ranges(&self) -> &[ShardRange] {
        &self.ranges
    }

    /// Whether the set covers nothing.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Whether the set covers the whole ring.
    pub fn is_full(&self) -> bool {
        self.ranges.len() == 1 && self.ranges[0].start == 0 && self.ranges[0].end == RING_END
    }

    /// The share of the ring covered (0..=1).
    pub fn fraction(&self) -> f64 {
        self.ranges.iter().map(ShardRange::fraction).sum()
    }

    /// The `shardSelector` selecting these ranges of `key`
    /// (`shardRange(object.metadata.uid, '0x…', '0x…') || …`); `None` for the full ring (no
    /// selector needed) and for the empty set (nothing to list).
    pub fn selector(&self, key: ShardKey) -> Option<String> {
        if self.is_empty() || self.is_full() {
            return None;
        }
        let parts: Vec<String> = self
            .ranges
            .iter()
            .map(|r| {
                format!(
                    "shardRange({}, '{}', '{}')",
                    key.field_path(),
                    hex_bound(r.start),
                    hex_bound(r.end)
                )
            })
            .collect();
        Some(parts.join(" || "))
    }
}

impl fmt::Display for RangeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.ranges.iter().map(ShardRange::to_string).collect();
        write!(f, "{}", parts.join(" "))
    }
}

/// Slot `slot` of `total` equal slots: `[ceil(slot*2^64/total), ceil((slot+1)*2^64/total))`,
/// so that [`slot_of`] and the ranges agree exactly for any `total`.
pub fn slot_range(slot: u16, total: u16) -> ShardRange {
    let total = u128::from(total.max(1));
    let bound = |s: u128| (s * RING_END).div_ceil(total);
    ShardRange {
        start: bound(u128::from(slot)),
        end: bound(u128::from(slot) + 1),
    }
}

/// The slot of `total` that `hash` falls in.
pub fn slot_of(hash: u64, total: u16) -> u16 {
    ((u128::from(hash) * u128::from(total.max(1))) >> 64) as u16
}

/// A set of slots written compactly for a Lease annotation: `0-3,7,9-12` (empty: ``).
pub fn format_slots(slots: &BTreeSet<u16>) -> String {
    let mut parts = Vec::new();
    let mut iter = slots.iter().copied().peekable();
    while let Some(first) = iter.next() {
        let mut last = first;
        while iter.peek() == Some(&(last + 1)) {
            last = iter.next().unwrap_or(last);
        }
        parts.push(if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        });
    }
    parts.join(",")
}

/// Reads [`format_slots`]'s form back; `None` when malformed.
pub fn parse_slots(text: &str) -> Option<BTreeSet<u16>> {
    let mut slots = BTreeSet::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u16, u16) = (a.parse().ok()?, b.parse().ok()?);
                if a > b {
                    return None;
                }
                slots.extend(a..=b);
            }
            None => {
                slots.insert(part.parse().ok()?);
            }
        }
    }
    Some(slots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_tile_the_ring_and_agree_with_slot_of() {
        for total in [1u16, 3, 7, 64, 100] {
            let mut end = 0u128;
            for s in 0..total {
                let r = slot_range(s, total);
                assert_eq!(
                    r.start,
                    end,
                    "slot {s} of {total} starts where {} ended",
                    s.wrapping_sub(1)
                );
                end = r.end;
                assert_eq!(slot_of(r.start as u64, total), s);
                assert_eq!(slot_of((r.end - 1) as u64, total), s);
            }
            assert_eq!(end, RING_END);
        }
        assert_eq!(slot_of(u64::MAX, 64), 63);
    }

    #[test]
    fn sets_merge_adjacent_ranges_and_render_the_selector() {
        let set = RangeSet::from_slots(&[0u16, 1, 3], 4);
        assert_eq!(set.ranges().len(), 2);
        assert!(set.contains(0));
        assert!(set.contains(0x7fff_ffff_ffff_ffff));
        assert!(!set.contains(0x8000_0000_0000_0000));
        assert!(set.contains(u64::MAX));
        assert_eq!(
            set.selector(ShardKey::Uid).unwrap(),
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || \
             shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')"
        );
        assert!(RangeSet::from_slots(&[0u16, 1, 2, 3], 4).is_full());
        assert_eq!(RangeSet::full().selector(ShardKey::Uid), None);
        assert_eq!(RangeSet::empty().selector(ShardKey::Uid), None);
        assert!(!RangeSet::empty().contains(5));
        assert!((set.fraction() - 0.75).abs() < 1e-12);
    }

    #[test]
    fn equal_parts_cover_the_ring_once() {
        let parts: Vec<RangeSet> = (0..3).map(|i| RangeSet::equal_part(i, 3)).collect();
        for h in [
            0u64,
            1,
            u64::MAX / 3,
            u64::MAX / 3 + 1,
            u64::MAX / 2,
            u64::MAX,
        ] {
            assert_eq!(parts.iter().filter(|p| p.contains(h)).count(), 1, "{h:x}");
        }
        assert!(RangeSet::equal_part(0, 1).is_full());
    }

    #[test]
    fn slot_lists_round_trip() {
        let slots: BTreeSet<u16> = [0, 1, 2, 3, 7, 9, 10, 11, 12].into();
        assert_eq!(format_slots(&slots), "0-3,7,9-12");
        assert_eq!(parse_slots("0-3,7,9-12"), Some(slots));
        assert_eq!(parse_slots(""), Some(BTreeSet::new()));
        assert_eq!(parse_slots("3-1"), None);
        assert_eq!(parse_slots("x"), None);
    }
}
