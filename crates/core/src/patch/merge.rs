//! JSON Merge Patch (RFC 7386): an object patch sets its members on the
//! target (recursively for objects), a `null` member removes one, and any
//! other patch replaces the target whole.

use super::tree::{open, At, Obj, Source, Sources, Val};
use super::write;
use crate::Document;

/// Merges `patch` into `target` (both strict documents, their roots),
/// appending the result's text to `out`. Untouched members of the target
/// are copied as their original bytes.
pub fn merge_patch(target: &Document<'_>, patch: &Document<'_>, out: &mut Vec<u8>) {
    let s = Sources { docs: vec![target as &dyn Source, patch] };
    let mut root = Val::At(At { src: 0, node: crate::ROOT });
    merge(&mut root, At { src: 1, node: crate::ROOT }, &s);
    // At most the target plus the patch, about: reserved at once.
    out.reserve(target.input().len() + patch.input().len());
    write::value(&root, &s, out);
}

/// MergePatch(target, patch) of RFC 7386, section 2, in place. Recursion
/// follows the patch's objects, as deep as its parse allowed.
fn merge(target: &mut Val, patch: At, s: &Sources<'_>) {
    if s.first(patch) != b'{' {
        *target = Val::At(patch);
        return;
    }
    let is_object = match target {
        Val::At(at) => s.first(*at) == b'{',
        Val::Obj(_) => true,
        Val::Arr(_) => false,
    };
    if !is_object {
        *target = Val::Obj(Box::new(Obj::new()));
    }
    open(target, s);
    let Val::Obj(obj) = target else { unreachable!("opened as an object") };
    for (key, value) in s.members(patch).0 {
        let name = s.key(key);
        let here = obj.position(&name, s);
        match (s.first(value), here) {
            (b'n', Some(i)) => {
                obj.members.remove(i);
            }
            (b'n', None) => {}
            (_, Some(i)) => merge(&mut obj.members[i].val, value, s),
            (_, None) => {
                // A new member: the patch's value, with its nulls applied
                // (to nothing: removed) where it is an object.
                let v = if s.first(value) == b'{' {
                    let mut fresh = Val::Obj(Box::new(Obj::new()));
                    merge(&mut fresh, value, s);
                    fresh
                } else {
                    Val::At(value)
                };
                obj.set(key, v, s);
            }
        }
    }
}
