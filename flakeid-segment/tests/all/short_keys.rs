//! Coprime-step short keys: the permutation property, rendering, parsing
//! and the block allocator.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;

use flakeid_segment::{
    AllocError, Alphabet, Block, BlockAllocator, LocalBlocks, ShortKeyConfig, ShortKeyError,
    ShortKeys,
};

use crate::support::Script;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Keys of `length` characters of a `base`-character alphabet with step `k`.
fn config(base: usize, length: u32, k: u64) -> Result<ShortKeyConfig, ShortKeyError> {
    let chars: String = (0..base).map(|i| char::from(b'!' + i as u8)).collect();
    ShortKeyConfig::with_alphabet_and_step(Alphabet::new(&chars).unwrap(), length, k)
}

#[test]
fn article_example_n5_k3() {
    let config = config(5, 1, 3).unwrap();
    let keys: Vec<u64> = (0..5).map(|i| config.key_at(i).unwrap()).collect();
    assert_eq!(keys, [0, 3, 1, 4, 2]);
    // The article's sixth key is 0 again: index 5 is refused instead of repeating.
    assert_eq!(
        config.key_at(5),
        Err(ShortKeyError::IndexOutOfRange { index: 5, n: 5 })
    );
    // And continuing the recurrence by hand gives the article's 0.
    assert_eq!((keys[4] + 3) % 5, 0);
}

#[test]
fn every_coprime_step_visits_all_keys_for_every_configurable_n_up_to_500() {
    // n = base^length for every base 2..=94 and length with n <= 500
    // (all of 2..=94, squares up to 22^2, cubes up to 7^3, 2^4..2^8, 3^4, 3^5, 4^4).
    let mut ns = HashSet::new();
    for base in 2..=94usize {
        for length in 1..=8u32 {
            let n = (base as u64).pow(length);
            if n > 500 {
                break;
            }
            ns.insert(n);
            for k in 0..=n {
                let coprime = k >= 1 && k < n && gcd(k, n) == 1;
                match config(base, length, k) {
                    Ok(c) => {
                        assert!(coprime, "n {n} k {k} accepted");
                        assert_eq!(c.n(), n);
                        let mut seen = vec![false; n as usize];
                        for i in 0..n {
                            let key = c.key_at(i).unwrap();
                            assert!(
                                !seen[key as usize],
                                "n {n} k {k}: key {key} repeated at {i}"
                            );
                            seen[key as usize] = true;
                            assert_eq!(c.index_of(key).unwrap(), i);
                            // The closed form is the article's recurrence.
                            if i > 0 {
                                assert_eq!(key, (c.key_at(i - 1).unwrap() + k) % n);
                            }
                            assert_eq!(c.decode(&c.encode(key).unwrap()).unwrap(), key);
                        }
                        assert!(c.key_at(n).is_err());
                    }
                    Err(ShortKeyError::StepNotCoprime {
                        step,
                        n: nn,
                        gcd: g,
                    }) => {
                        assert!(!coprime, "n {n} k {k} refused");
                        assert_eq!((step, nn), (k, n));
                        assert_eq!(g, if k == 0 { n } else { gcd(k, n) });
                    }
                    Err(e) => panic!("unexpected {e}"),
                }
            }
        }
    }
    assert_eq!(ns.len(), 111); // distinct n covered
}

#[test]
fn the_recurrence_visits_all_keys_for_every_n_up_to_500() {
    // The group-theory fact itself, for every n (not only powers).
    for n in 2..=500u64 {
        for k in (1..n).filter(|&k| gcd(k, n) == 1) {
            let mut seen = vec![false; n as usize];
            let mut key = 0u64;
            for i in 0..n {
                assert!(!seen[key as usize], "n {n} k {k} repeats at {i}");
                seen[key as usize] = true;
                key = (key + k) % n;
            }
            assert_eq!(key, 0, "n {n} k {k}: back at the start after n steps");
        }
    }
}

#[test]
fn a_step_sharing_a_factor_with_n_repeats_early() {
    // Why the check exists: n = 12, k = 8 (gcd 4) returns to 0 after 3 keys.
    let (n, k) = (12u64, 8u64);
    let keys: Vec<u64> = (0..4).map(|i| i * k % n).collect();
    assert_eq!(keys, [0, 8, 4, 0]);
    let config = ShortKeyConfig::new(Alphabet::new("0123456789ab").unwrap(), 1).unwrap();
    assert_eq!(
        config.with_step(8),
        Err(ShortKeyError::StepNotCoprime {
            step: 8,
            n: 12,
            gcd: 4
        })
    );
}

#[test]
fn default_configuration_matches_the_article() {
    let config = ShortKeyConfig::default();
    assert_eq!(config.n(), 62u64.pow(6));
    assert_eq!(config.n(), 56_800_235_584);
    // 67·71·73·79·83·89 = 202,652,143,553 > n, reduced modulo n.
    assert_eq!(config.step(), 202_652_143_553 % 56_800_235_584);
    assert_eq!(gcd(config.step(), config.n()), 1);
    assert_eq!(config.alphabet().as_str(), Alphabet::BASE62);
    assert_eq!(config.length(), 6);
    // Seven characters: about 3.5 trillion keys, default step still coprime.
    let seven = ShortKeyConfig::new(Alphabet::base62(), 7).unwrap();
    assert_eq!(seven.n(), 3_521_614_606_208);
    assert_eq!(gcd(seven.step(), seven.n()), 1);
}

#[test]
fn step_and_offset_validation() {
    let c = ShortKeyConfig::default();
    let n = c.n();
    for bad in [0, n, n + 1, 2, 31, 62, 31 * 31] {
        assert!(
            matches!(c.clone().with_step(bad), Err(ShortKeyError::StepNotCoprime { step, .. }) if step == bad),
            "step {bad}"
        );
    }
    assert!(c.clone().with_step(1).is_ok());
    assert!(c.clone().with_step(n - 1).is_ok());
    assert_eq!(
        c.clone().with_offset(n),
        Err(ShortKeyError::OffsetOutOfRange { offset: n, n })
    );
    let shifted = c.with_offset(1_000).unwrap();
    assert_eq!(shifted.key_at(0).unwrap(), 1_000);
    assert_eq!(shifted.index_of(1_000).unwrap(), 0);
    let last = shifted.key_at(n - 1).unwrap();
    assert_eq!(shifted.index_of(last).unwrap(), n - 1);
}

#[test]
fn alphabet_validation() {
    assert_eq!(
        Alphabet::new("a"),
        Err(ShortKeyError::AlphabetTooShort { len: 1 })
    );
    assert_eq!(
        Alphabet::new(""),
        Err(ShortKeyError::AlphabetTooShort { len: 0 })
    );
    assert_eq!(
        Alphabet::new("ab b"),
        Err(ShortKeyError::AlphabetNotAscii {
            character: ' ',
            position: 2
        })
    );
    assert_eq!(
        Alphabet::new("abé"),
        Err(ShortKeyError::AlphabetNotAscii {
            character: 'é',
            position: 2
        })
    );
    assert_eq!(
        Alphabet::new("xyzx"),
        Err(ShortKeyError::AlphabetDuplicate { character: 'x' })
    );
    // 94 printable characters fit; 10 of them ^ 20 do not fit in 64 bits.
    let all: String = (b'!'..=b'~').map(char::from).collect();
    assert_eq!(Alphabet::new(&all).unwrap().len(), 94);
    let digits = Alphabet::new("0123456789").unwrap();
    assert_eq!(
        ShortKeyConfig::new(digits.clone(), 20),
        Err(ShortKeyError::TooManyKeys {
            alphabet: 10,
            length: 20
        })
    );
    assert_eq!(
        ShortKeyConfig::new(digits.clone(), 0),
        Err(ShortKeyError::TooManyKeys {
            alphabet: 10,
            length: 0
        })
    );
    assert_eq!(ShortKeyConfig::new(digits, 19).unwrap().n(), 10u64.pow(19));
}

#[test]
fn rendering_is_fixed_length_and_round_trips() {
    let c = ShortKeyConfig::default();
    for key in [0, 1, 61, 62, c.n() - 1, c.key_at(1).unwrap()] {
        let s = c.encode(key).unwrap();
        assert_eq!(s.len(), 6);
        assert_eq!(c.decode(&s).unwrap(), key);
    }
    assert_eq!(c.encode(c.n() - 1).unwrap(), "zzzzzz");
    assert_eq!(
        c.encode(c.n()),
        Err(ShortKeyError::KeyOutOfRange {
            key: c.n(),
            n: c.n()
        })
    );
    // Case matters; wrong length and foreign characters are typed errors.
    assert_ne!(c.decode("00000a").unwrap(), c.decode("00000A").unwrap());
    assert!(matches!(
        c.decode("0000000"),
        Err(ShortKeyError::KeyLength {
            len: 7,
            expected: 6,
            ..
        })
    ));
    assert!(matches!(
        c.decode(""),
        Err(ShortKeyError::KeyLength { len: 0, .. })
    ));
    assert!(matches!(
        c.decode("00é000"),
        Err(ShortKeyError::KeyChar {
            character: 'é',
            position: 2,
            ..
        })
    ));
    // A custom alphabet renders with its own characters, in its digit order.
    let custom = ShortKeyConfig::new(Alphabet::new("xyz").unwrap(), 3).unwrap();
    assert_eq!(custom.encode(0).unwrap(), "xxx");
    assert_eq!(custom.encode(5).unwrap(), "xyz");
    assert_eq!(custom.decode("zzz").unwrap(), 26);
}

#[test]
fn allocator_serves_each_index_of_its_blocks_once() {
    let config = ShortKeyConfig::default();
    let keys = ShortKeys::new(config.clone(), LocalBlocks::new(&config, 7).unwrap());
    let indices: Vec<u64> = (0..50).map(|_| keys.next_index().unwrap()).collect();
    assert_eq!(indices, (0..50).collect::<Vec<u64>>());
    let key = keys.next_key().unwrap();
    assert_eq!(key, config.key_at(50).unwrap());
    let text = keys.next_key_string().unwrap();
    assert_eq!(config.index_of(config.decode(&text).unwrap()).unwrap(), 51);
}

#[derive(Debug, thiserror::Error)]
#[error("no more blocks")]
pub(crate) struct NoMoreBlocks;

/// Hands out the given blocks in order, then fails.
impl BlockAllocator for Script<Block> {
    type Error = NoMoreBlocks;
    fn refill(&self) -> Result<Block, NoMoreBlocks> {
        self.answer().ok_or(NoMoreBlocks)
    }
}

fn scripted(blocks: &[Block]) -> Script<Block> {
    Script::new(blocks.iter().copied())
}

#[test]
fn blocks_handed_in_are_served_in_order_and_refill_errors_surface() {
    let config = ShortKeyConfig::default();
    let keys = ShortKeys::new(
        config.clone(),
        scripted(&[
            Block {
                start: 1_000,
                len: 2,
            },
            Block { start: 5, len: 1 },
        ]),
    );
    assert_eq!(keys.next_index().unwrap(), 1_000);
    assert_eq!(keys.next_index().unwrap(), 1_001);
    assert_eq!(keys.next_index().unwrap(), 5);
    assert!(matches!(
        keys.next_index(),
        Err(AllocError::Refill(NoMoreBlocks))
    ));
    assert_eq!(keys.allocator().calls(), 3);
}

#[test]
fn invalid_blocks_are_refused() {
    let config = ShortKeyConfig::default();
    let n = config.n();
    for bad in [
        Block { start: 0, len: 0 },
        Block { start: n, len: 1 },
        Block {
            start: n - 1,
            len: 2,
        },
        Block {
            start: 0,
            len: ShortKeyConfig::MAX_BLOCK_LEN + 1,
        },
    ] {
        let keys = ShortKeys::new(config.clone(), scripted(&[bad]));
        match keys.next_index() {
            Err(AllocError::Key(ShortKeyError::InvalidBlock { start, len, .. })) => {
                assert_eq!((start, len), (bad.start, bad.len));
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    // The last index of the key space is a valid one-index block.
    let keys = ShortKeys::new(
        config.clone(),
        scripted(&[Block {
            start: n - 1,
            len: 1,
        }]),
    );
    assert_eq!(keys.next_index().unwrap(), n - 1);
}

#[test]
fn local_blocks_stop_at_n() {
    let config = ShortKeyConfig::new(Alphabet::new("0123456789").unwrap(), 2)
        .unwrap()
        .with_step(7)
        .unwrap();
    let keys = ShortKeys::new(config.clone(), LocalBlocks::new(&config, 30).unwrap());
    let all: HashSet<String> = (0..100).map(|_| keys.next_key_string().unwrap()).collect();
    assert_eq!(all.len(), 100);
    assert!(matches!(
        keys.next_key(),
        Err(AllocError::Refill(ShortKeyError::Exhausted { n: 100 }))
    ));
    assert!(LocalBlocks::new(&config, 0).is_err());
}

/// A block source counting how many indices it handed out.
#[derive(Debug)]
struct Counting {
    next: AtomicU64,
    len: u64,
}

impl BlockAllocator for Counting {
    type Error = ShortKeyError;
    fn refill(&self) -> Result<Block, ShortKeyError> {
        let start = self.next.fetch_add(self.len, Ordering::SeqCst);
        Ok(Block {
            start,
            len: self.len,
        })
    }
}

#[test]
fn concurrent_callers_never_get_the_same_key() {
    let config = ShortKeyConfig::default();
    // Small blocks force many refills while other threads take keys.
    let keys = Arc::new(ShortKeys::new(
        config.clone(),
        Counting {
            next: AtomicU64::new(0),
            len: 3,
        },
    ));
    let per_thread = 20_000;
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let keys = Arc::clone(&keys);
            thread::spawn(move || {
                (0..per_thread)
                    .map(|_| keys.next_key().unwrap())
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut all = HashSet::new();
    for h in handles {
        for key in h.join().unwrap() {
            assert!(all.insert(key), "key {key} issued twice");
        }
    }
    assert_eq!(all.len(), 4 * per_thread);
    // Every handed-out index was used: no block was skipped or served twice.
    let handed_out = keys.allocator().next.load(Ordering::SeqCst);
    let indices: HashSet<u64> = all.iter().map(|&k| config.index_of(k).unwrap()).collect();
    assert!(indices.iter().all(|&i| i < handed_out));
    assert!(handed_out - (4 * per_thread as u64) < 3);
}
