//! Unit tests of `src/node/kubernetes.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;

#[test]
fn ordinal_from_hostname_example() {
    assert_eq!(ordinal_from_hostname("orders-api-12").unwrap(), 12);
    assert!(ordinal_from_hostname("orders-api-7c9f8d6b5-x2x4z").is_err()); // a Deployment's pod
}

#[test]
fn ordinal_from_labels_example() {
    let labels = "app=\"orders\"\napps.kubernetes.io/pod-index=\"2\"\n";
    assert_eq!(ordinal_from_labels(labels).unwrap(), Some(2));
    assert_eq!(ordinal_from_labels("app=\"orders\"\n").unwrap(), None);
}

#[test]
fn sources_in_order() {
    let none = Path::new("/nonexistent/labels");
    let host = || Ok("web-4".to_owned());
    let o = Ordinal::from_sources(Some("7".into()), none, host).unwrap();
    assert_eq!((o.value, o.source.as_str()), (7, POD_INDEX_VAR));
    assert_eq!(Ordinal::from_sources(None, none, host).unwrap().value, 4);
    assert_eq!(
        Ordinal::from_sources(Some(" ".into()), none, host)
            .unwrap()
            .value,
        4
    );
    assert_eq!(
        Ordinal::from_sources(Some("x".into()), none, host).unwrap_err(),
        OrdinalError::Invalid {
            source_name: POD_INDEX_VAR.into(),
            value: "x".into()
        }
    );
    let dir = std::env::temp_dir().join(format!("flakeid-k8s-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let labels = dir.join("labels");
    std::fs::write(&labels, "app=\"x\"\napps.kubernetes.io/pod-index=\"9\"\n").unwrap();
    let o = Ordinal::from_sources(None, &labels, host).unwrap();
    assert_eq!(o.value, 9);
    std::fs::remove_dir_all(&dir).unwrap();
    for bad in [
        "web",
        "web-",
        "-3",
        "web-3a",
        "web-+3",
        "web-99999999999999999999999",
    ] {
        assert!(ordinal_from_hostname(bad).is_err(), "{bad}");
    }
    let o = Ordinal {
        value: 1024,
        source: "hostname web-1024".into(),
    };
    assert!(matches!(
        o.check(1023),
        Err(OrdinalError::OutOfRange { max: 1023, .. })
    ));
}
