//! Margin parity ([`Rules::margin_parity`](super::Rules::margin_parity)):
//! the two players' boxes add up to the unclaimed boxes, so every margin
//! has their parity, and bounds round to it.

/// The least margin of the given parity (0 or 1) at least `v`.
pub(super) fn up_to_parity(v: i32, parity: i32) -> i32 {
    v + (v - parity).rem_euclid(2)
}

/// The greatest margin of the given parity (0 or 1) at most `v`.
pub(super) fn down_to_parity(v: i32, parity: i32) -> i32 {
    v - (v - parity).rem_euclid(2)
}

/// `bounds` rounded inwards to margins of the given parity.
pub(super) fn to_parity(bounds: (i32, i32), parity: i32) -> (i32, i32) {
    (
        up_to_parity(bounds.0, parity),
        down_to_parity(bounds.1, parity),
    )
}
