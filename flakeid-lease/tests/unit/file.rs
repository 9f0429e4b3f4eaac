//! Unit tests of `src/file/`: what a high-water file may hold (a private
//! parser, so these run as the module's `tests`).

use super::*;

#[test]
fn marks_are_plain_digits() {
    assert_eq!(parse_mark("1700000000000\n"), Some(1_700_000_000_000));
    assert_eq!(parse_mark(" 12 "), Some(12));
    for bad in [
        "",
        "\n",
        "-1",
        "+1",
        "1e3",
        "12x",
        "99999999999999999999999",
    ] {
        assert_eq!(parse_mark(bad), None, "{bad:?}");
    }
}
