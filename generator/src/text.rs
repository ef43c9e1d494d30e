//! How the command writes quantities, the same everywhere: counts with
//! the noun in the singular for one, durations in seconds.

use std::time::Duration;

/// `n` and the noun, singular for one: `1 block`, `12,345 positions`.
pub fn count(n: u64, singular: &str, plural: &str) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(d);
    }
    format!("{grouped} {}", if n == 1 { singular } else { plural })
}

/// A duration as the command prints every duration: seconds.
pub fn seconds(duration: Duration) -> String {
    format!("{:.3} s", duration.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_seconds() {
        assert_eq!(count(1, "block", "blocks"), "1 block");
        assert_eq!(count(0, "block", "blocks"), "0 blocks");
        assert_eq!(count(1001, "position", "positions"), "1,001 positions");
        assert_eq!(
            count(10_000_000, "position", "positions"),
            "10,000,000 positions"
        );
        assert_eq!(seconds(Duration::from_millis(61)), "0.061 s");
    }
}
