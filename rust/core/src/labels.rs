//! Class labels given as integers, numbered by rank.

/// `(classes, codes)` for integer labels `y` that span at most `4 x len` values: the
/// distinct values ascending and each label's index among them, by counting rather
/// than sorting. `None` for an empty `y` or a wider span (the caller then sorts).
pub fn dense_codes(y: &[i64]) -> Option<(Vec<i64>, Vec<i64>)> {
    let (&first, rest) = y.split_first()?;
    let (mut low, mut high) = (first, first);
    for &v in rest {
        low = low.min(v);
        high = high.max(v);
    }
    let span = u64::try_from(i128::from(high) - i128::from(low)).ok()?;
    if span > 4 * y.len() as u64 {
        return None;
    }
    // Per value offset: its rank among the values present, once counted.
    let mut rank = vec![0i64; span as usize + 1];
    for &v in y {
        rank[(v - low) as usize] = 1;
    }
    let mut classes = Vec::new();
    for (offset, r) in rank.iter_mut().enumerate() {
        if *r != 0 {
            *r = classes.len() as i64;
            classes.push(low + offset as i64);
        }
    }
    let codes = y.iter().map(|&v| rank[(v - low) as usize]).collect();
    Some((classes, codes))
}

#[cfg(test)]
mod tests {
    use super::dense_codes;

    #[test]
    fn codes_are_ranks_among_the_values_present() {
        let (classes, codes) = dense_codes(&[5, -2, 5, 9, -2]).unwrap();
        assert_eq!(classes, vec![-2, 5, 9]);
        assert_eq!(codes, vec![1, 0, 1, 2, 0]);
    }

    #[test]
    fn wide_spans_and_empty_labels_are_left_to_the_caller() {
        assert!(dense_codes(&[]).is_none());
        assert!(dense_codes(&[0, 1_000]).is_none());
        assert!(dense_codes(&[i64::MIN, i64::MAX]).is_none());
        assert_eq!(dense_codes(&[7]).unwrap(), (vec![7], vec![0]));
    }
}
