//! ID types in protobuf messages: proto3's JSON mapping (prost-reflect)
//! and the binary encoding (prost) of `tests/proto/users.proto`'s `User`,
//! whose ID fields are `int64`, `fixed64` and `string`, converted to and
//! from ID types with the standard `TryFrom` / `FromStr` / `From`.
//!
//! The input is a message in proto3 JSON, and the same bytes as a binary
//! message. Property: a message that decodes converts to IDs exactly when
//! each field's value is one (else the first bad field's [`IdError`],
//! naming the type and the value); converted IDs written back to a message
//! and through JSON (where `int64` and `fixed64` are strings) and the
//! binary encoding come back as the same IDs.

use std::sync::OnceLock;

use flakeid_core::IdError;
use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{
    DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
    OneofDescriptorProto,
};

use crate::ids::TwitterId;
use crate::oracle::{Expect, assert_id};

/// `flakeid.example.User` of `tests/proto/users.proto`, as `prost-build`
/// generates it.
#[derive(Clone, PartialEq, Message)]
pub struct User {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(fixed64, tag = "2")]
    pub id_fixed: u64,
    #[prost(string, tag = "3")]
    pub id_text: String,
    #[prost(int64, optional, tag = "4")]
    pub referrer_id: Option<i64>,
    #[prost(int64, repeated, tag = "5")]
    pub friend_ids: Vec<i64>,
    #[prost(string, tag = "6")]
    pub name: String,
}

/// A user as an application holds it: every ID field an ID.
#[derive(Debug, PartialEq)]
struct Member {
    id: TwitterId,
    id_fixed: TwitterId,
    id_text: TwitterId,
    referrer: Option<TwitterId>,
    friends: Vec<TwitterId>,
    name: String,
}

impl TryFrom<&User> for Member {
    type Error = IdError;

    fn try_from(u: &User) -> Result<Self, IdError> {
        Ok(Member {
            id: TwitterId::try_from(u.id)?,
            id_fixed: TwitterId::try_from(u.id_fixed)?,
            id_text: u.id_text.parse()?,
            referrer: u.referrer_id.map(TwitterId::try_from).transpose()?,
            friends: u
                .friend_ids
                .iter()
                .map(|&f| TwitterId::try_from(f))
                .collect::<Result<_, _>>()?,
            name: u.name.clone(),
        })
    }
}

impl From<&Member> for User {
    fn from(m: &Member) -> Self {
        User {
            id: m.id.into(),
            id_fixed: m.id_fixed.into(),
            id_text: m.id_text.to_string(),
            referrer_id: m.referrer.map(i64::from),
            friend_ids: m.friends.iter().copied().map(i64::from).collect(),
            name: m.name.clone(),
        }
    }
}

pub fn check(data: &[u8]) {
    let desc = user_descriptor();
    let mut de = serde_json::Deserializer::from_slice(data);
    let from_json = DynamicMessage::deserialize(desc.clone(), &mut de).and_then(|m| {
        de.end()?;
        Ok(m)
    });
    if let Ok(message) = from_json {
        let user: User = message
            .transcode_to()
            .expect("a User message transcodes to User");
        converts(&user);
    }
    let from_binary = User::decode(data);
    let dynamic = DynamicMessage::decode(desc.clone(), data);
    if let (Ok(user), Ok(dynamic)) = (&from_binary, &dynamic) {
        assert_eq!(dynamic.transcode_to::<User>().as_ref(), Ok(user));
    }
    if let Ok(user) = from_binary {
        converts(&user);
    }
}

/// `user`'s ID fields convert exactly when each is an ID, and converted
/// IDs come back through JSON and the binary encoding.
fn converts(user: &User) {
    let mut want = vec![Expect::from_i64::<TwitterId>(user.id)];
    want.push(Expect::from_u64::<TwitterId>(user.id_fixed));
    want.push(Expect::from_str::<TwitterId>(&user.id_text));
    want.extend(user.referrer_id.map(Expect::from_i64::<TwitterId>));
    want.extend(
        user.friend_ids
            .iter()
            .map(|&f| Expect::from_i64::<TwitterId>(f)),
    );
    let first_bad = want.iter().find(|w| !matches!(w, Expect::Id(_)));
    match (Member::try_from(user), first_bad) {
        (Ok(member), None) => {
            let back = User::from(&member);
            let mut dynamic = DynamicMessage::new(user_descriptor().clone());
            dynamic.transcode_from(&back).expect("a User transcodes");
            let json = serde_json::to_value(&dynamic).expect("proto3 JSON");
            assert_eq!(json["id"], member.id.to_string(), "{json}");
            assert_eq!(json["idFixed"], member.id_fixed.to_string(), "{json}");
            if let Some(referrer) = member.referrer {
                assert_eq!(json["referrerId"], referrer.to_string(), "{json}");
            }
            let parsed = DynamicMessage::deserialize(user_descriptor().clone(), json)
                .expect("its own JSON reads back");
            let again: User = parsed.transcode_to().expect("transcode");
            assert_eq!(Member::try_from(&again).as_ref(), Ok(&member));
            let bytes = back.encode_to_vec();
            let decoded = User::decode(bytes.as_slice()).expect("its own bytes decode");
            assert_eq!(Member::try_from(&decoded).as_ref(), Ok(&member));
        }
        (Err(e), Some(&bad)) => {
            let got: Result<TwitterId, IdError> = Err(e);
            assert_id(&got, bad, user);
        }
        (got, bad) => panic!("{user:?}: got {got:?}, first bad field {bad:?}"),
    }
}

/// The descriptor of `User`, written out as protox compiles it from
/// `tests/proto/users.proto` (the replay test compares the two).
pub fn user_descriptor() -> &'static MessageDescriptor {
    static DESCRIPTOR: OnceLock<MessageDescriptor> = OnceLock::new();
    DESCRIPTOR.get_or_init(|| {
        let field =
            |name: &str, json: &str, number: i32, ty: Type, label: Label| FieldDescriptorProto {
                name: Some(name.to_owned()),
                json_name: Some(json.to_owned()),
                number: Some(number),
                r#type: Some(ty.into()),
                label: Some(label.into()),
                ..Default::default()
            };
        let referrer = FieldDescriptorProto {
            oneof_index: Some(0),
            proto3_optional: Some(true),
            ..field("referrer_id", "referrerId", 4, Type::Int64, Label::Optional)
        };
        let user = DescriptorProto {
            name: Some("User".to_owned()),
            field: vec![
                field("id", "id", 1, Type::Int64, Label::Optional),
                field("id_fixed", "idFixed", 2, Type::Fixed64, Label::Optional),
                field("id_text", "idText", 3, Type::String, Label::Optional),
                referrer,
                field("friend_ids", "friendIds", 5, Type::Int64, Label::Repeated),
                field("name", "name", 6, Type::String, Label::Optional),
            ],
            oneof_decl: vec![OneofDescriptorProto {
                name: Some("_referrer_id".to_owned()),
                ..Default::default()
            }],
            ..Default::default()
        };
        let file = FileDescriptorProto {
            name: Some("users.proto".to_owned()),
            package: Some("flakeid.example".to_owned()),
            message_type: vec![user],
            syntax: Some("proto3".to_owned()),
            ..Default::default()
        };
        DescriptorPool::from_file_descriptor_set(FileDescriptorSet { file: vec![file] })
            .expect("the User descriptor is valid")
            .get_message_by_name("flakeid.example.User")
            .expect("the pool holds User")
    })
}
