//! ID types in protobuf messages (prost): every ID type converts to and
//! from `int64` (`i64`), `fixed64` (`u64`) and `string` fields with the
//! standard traits, refusing values that are not IDs with a typed
//! [`IdError`]; IDs above 2^53 round-trip through the binary encoding and
//! through proto3's JSON mapping, which writes them as strings.
//!
//! The message is `tests/proto/users.proto`, written out as a prost
//! message (what `prost-build` generates from it); the JSON mapping is
//! prost-reflect's, on the descriptor protox compiles from the same file.

use flakeid_core::layout::presets;
use flakeid_core::{FlakeId, IdError, flake_id};
use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage};

/// Twitter's layout.
#[flake_id]
pub(crate) struct MemberId(i64);

/// JavaScript-safe: at most `2^53 − 1`.
#[flake_id(layout = presets::js_safe)]
pub(crate) struct BadgeId(i64);

/// `flakeid.example.User` of `tests/proto/users.proto`.
#[derive(Clone, PartialEq, Message)]
struct User {
    #[prost(int64, tag = "1")]
    id: i64,
    #[prost(fixed64, tag = "2")]
    id_fixed: u64,
    #[prost(string, tag = "3")]
    id_text: String,
    #[prost(int64, optional, tag = "4")]
    referrer_id: Option<i64>,
    #[prost(int64, repeated, tag = "5")]
    friend_ids: Vec<i64>,
    #[prost(string, tag = "6")]
    name: String,
}

/// A member as the application holds it.
#[derive(Debug, PartialEq)]
struct Member {
    id: MemberId,
    referrer: Option<MemberId>,
    friends: Vec<MemberId>,
    name: String,
}

impl From<&Member> for User {
    fn from(m: &Member) -> Self {
        User {
            id: m.id.into(),
            id_fixed: m.id.into(),
            id_text: m.id.to_string(),
            referrer_id: m.referrer.map(i64::from),
            friend_ids: m.friends.iter().copied().map(i64::from).collect(),
            name: m.name.clone(),
        }
    }
}

impl TryFrom<User> for Member {
    type Error = IdError;

    fn try_from(u: User) -> Result<Self, IdError> {
        let id = MemberId::try_from(u.id)?;
        assert_eq!(MemberId::try_from(u.id_fixed)?, id);
        assert_eq!(u.id_text.parse::<MemberId>()?, id);
        Ok(Member {
            id,
            referrer: u.referrer_id.map(MemberId::try_from).transpose()?,
            friends: u
                .friend_ids
                .into_iter()
                .map(MemberId::try_from)
                .collect::<Result<_, _>>()?,
            name: u.name,
        })
    }
}

/// The smallest integer JavaScript's `Number` cannot hold exactly.
const ABOVE_2_53: i64 = (1 << 53) + 1;

fn member() -> Member {
    Member {
        id: MemberId::from_i64(ABOVE_2_53).expect("an ID"),
        referrer: Some(MemberId::from_i64(i64::MAX).expect("an ID")),
        friends: vec![
            MemberId::from_i64(ABOVE_2_53 + 2).expect("an ID"),
            MemberId::from_i64(1).expect("an ID"),
        ],
        name: "ada".to_owned(),
    }
}

/// The descriptor of `flakeid.example.User`, compiled from the `.proto`.
fn user_descriptor() -> prost_reflect::MessageDescriptor {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/proto");
    let files = protox::compile(["users.proto"], [dir]).expect("users.proto compiles");
    DescriptorPool::from_file_descriptor_set(files)
        .expect("a descriptor pool")
        .get_message_by_name("flakeid.example.User")
        .expect("the User message")
}

#[test]
fn ids_above_2_53_round_trip_through_the_binary_encoding() {
    let sent = member();
    let bytes = User::from(&sent).encode_to_vec();
    let received = Member::try_from(User::decode(bytes.as_slice()).expect("decode"))
        .expect("every field an ID");
    assert_eq!(received, sent);
    // The generated message of the `.proto` reads the same bytes.
    let dynamic = DynamicMessage::decode(user_descriptor(), bytes.as_slice()).expect("decode");
    assert_eq!(
        dynamic.get_field_by_name("id").expect("id").as_i64(),
        Some(ABOVE_2_53)
    );
}

#[test]
fn ids_reach_proto3_json_as_strings_and_come_back_exactly() {
    let sent = member();
    let mut dynamic = DynamicMessage::new(user_descriptor());
    dynamic
        .transcode_from(&User::from(&sent))
        .expect("transcode");
    let json = serde_json::to_string(&dynamic).expect("proto3 JSON");
    let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(
        value,
        serde_json::json!({
            "id": "9007199254740993",
            "idFixed": "9007199254740993",
            "idText": "9007199254740993",
            "referrerId": "9223372036854775807",
            "friendIds": ["9007199254740995", "1"],
            "name": "ada",
        }),
        "{json}"
    );

    let mut de = serde_json::Deserializer::from_str(&json);
    let parsed = DynamicMessage::deserialize(user_descriptor(), &mut de).expect("parse");
    let user: User = parsed.transcode_to().expect("transcode");
    assert_eq!(Member::try_from(user).expect("every field an ID"), sent);
}

#[test]
fn out_of_range_field_values_are_typed_errors() {
    assert_eq!(
        MemberId::try_from(-1_i64),
        Err(IdError::Negative {
            type_name: "MemberId",
            value: -1
        })
    );
    assert_eq!(
        MemberId::try_from(0_u64),
        Err(IdError::Zero {
            type_name: "MemberId"
        })
    );
    assert_eq!(
        MemberId::try_from(u64::MAX),
        Err(IdError::TooLarge {
            type_name: "MemberId",
            value: u128::from(u64::MAX),
            max: i64::MAX as u64
        })
    );
    let js_max = (1_u64 << 53) - 1;
    assert_eq!(
        BadgeId::try_from(js_max + 1),
        Err(IdError::TooLarge {
            type_name: "BadgeId",
            value: u128::from(js_max + 1),
            max: js_max
        })
    );
    assert!(matches!(
        "012".parse::<MemberId>(),
        Err(IdError::Text {
            type_name: "MemberId",
            ..
        })
    ));
    // A message that carries a non-ID is refused as a whole, naming the value.
    let bad = User {
        friend_ids: vec![ABOVE_2_53, -7],
        ..User::from(&member())
    };
    let err = Member::try_from(User::decode(bad.encode_to_vec().as_slice()).expect("decode"))
        .expect_err("-7 is no ID");
    assert_eq!(
        err.to_string(),
        "-7 is not a valid MemberId: IDs are positive"
    );
}

/// A prefixed ID type: its `string` field holds `pay_…`, its `int64` and
/// `fixed64` fields the stored key.
#[flake_id(prefix = "pay", text = base62)]
pub(crate) struct PaymentId(i64);

/// A prefixed type of another kind, whose text a `PaymentId` field refuses.
#[flake_id(prefix = "mbr")]
pub(crate) struct PrefixedMemberId(i64);

#[test]
fn prefixed_ids_above_2_53_round_trip_through_proto3_json_and_other_prefixes_are_refused() {
    let id = PaymentId::from_i64(ABOVE_2_53).expect("an ID");
    let sent = User {
        id: id.into(),
        id_fixed: id.into(),
        id_text: id.to_string(),
        referrer_id: None,
        friend_ids: vec![],
        name: "ada".to_owned(),
    };
    let mut dynamic = DynamicMessage::new(user_descriptor());
    dynamic.transcode_from(&sent).expect("transcode");
    let json = serde_json::to_string(&dynamic).expect("proto3 JSON");
    let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(value["idText"], "pay_00fFgnDxSe9", "{json}");
    assert_eq!(value["id"], "9007199254740993", "{json}");

    let mut de = serde_json::Deserializer::from_str(&json);
    let parsed = DynamicMessage::deserialize(user_descriptor(), &mut de).expect("parse");
    let received: User = parsed.transcode_to().expect("transcode");
    assert_eq!(received.id_text.parse::<PaymentId>(), Ok(id));
    assert_eq!(PaymentId::try_from(received.id), Ok(id));
    assert_eq!(PaymentId::try_from(received.id_fixed), Ok(id));

    // A member's ID in the payment's string field is refused, naming both.
    let member = PrefixedMemberId::from_i64(ABOVE_2_53).expect("an ID");
    let wrong = User {
        id_text: member.to_string(),
        ..sent
    };
    let mut dynamic = DynamicMessage::new(user_descriptor());
    dynamic.transcode_from(&wrong).expect("transcode");
    let json = serde_json::to_string(&dynamic).expect("proto3 JSON");
    let mut de = serde_json::Deserializer::from_str(&json);
    let parsed = DynamicMessage::deserialize(user_descriptor(), &mut de).expect("parse");
    let received: User = parsed.transcode_to().expect("transcode");
    assert_eq!(received.id_text, "mbr_9007199254740993");
    let err = received.id_text.parse::<PaymentId>().unwrap_err();
    assert_eq!(
        err,
        IdError::Prefix {
            type_name: "PaymentId",
            value: "mbr_9007199254740993".to_owned(),
            expected: "pay"
        }
    );
    assert_eq!(
        err.to_string(),
        "\"mbr_9007199254740993\" is not a PaymentId: expected prefix pay_"
    );
}
