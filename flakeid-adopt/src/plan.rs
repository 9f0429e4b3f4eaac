//! What the dialects' migrations share: the proof that every key is below
//! the cut-over, the name of the key's check and the order of the table
//! locks.

/// The proof's SQL: the cut-over, and the first key at the database's
/// clock.
pub(crate) struct Guard {
    pub(crate) cut_over: u64,
    pub(crate) first_key_now: String,
}

impl Guard {
    /// The message of the refusal for `table.column`.
    pub(crate) fn too_large(&self, table: &str, column: &str) -> String {
        format!(
            "flakeid: {table}.{column} holds a key at or above the cut-over {}; nothing was changed",
            self.cut_over
        )
    }

    /// The message of the refusal for a cut-over above the first key now.
    pub(crate) fn in_future(&self) -> String {
        format!(
            "flakeid: the cut-over {} is above the first key the layout issues now; nothing was \
             changed",
            self.cut_over
        )
    }
}

/// The name of the check every key gets (names of checks are per table).
pub(crate) const CHECK: &str = "flakeid_key_check";

/// The tables to lock, referencing tables before the tables they
/// reference (the order in which a writer locks them: the row it inserts,
/// then the rows its foreign keys read).
pub(crate) fn lock_order(order: &[(String, Vec<String>)]) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for (key, referencing) in order {
        for t in referencing.iter().chain(std::iter::once(key)) {
            if !all.contains(t) {
                all.push(t.clone());
            }
        }
    }
    // `x` must come before `y` when `x` references `y`.
    let references = |x: &String, y: &String| {
        order
            .iter()
            .any(|(key, referencing)| key == y && key != x && referencing.contains(x))
    };
    let mut out: Vec<String> = Vec::new();
    while !all.is_empty() {
        let next = all
            .iter()
            .position(|x| !all.iter().any(|y| y != x && references(y, x)))
            .unwrap_or(0);
        out.push(all.remove(next));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referencing_tables_are_locked_first() {
        let order = vec![
            (
                "\"users\"".to_owned(),
                vec!["\"posts\"".to_owned(), "\"comments\"".to_owned()],
            ),
            ("\"posts\"".to_owned(), vec!["\"comments\"".to_owned()]),
            ("\"comments\"".to_owned(), vec![]),
        ];
        assert_eq!(
            lock_order(&order),
            ["\"comments\"", "\"posts\"", "\"users\""]
        );
        // A table referencing itself does not stop the order.
        let own = vec![("\"tree\"".to_owned(), vec!["\"tree\"".to_owned()])];
        assert_eq!(lock_order(&own), ["\"tree\""]);
    }
}
