//! The derives' attributes, parsed into plain values; every mistake is a `syn::Error` spanned
//! on the tokens at fault.

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Path};

use crate::Root;

/// `storage = "..."` of `#[component]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Storage {
    Table,
    Sparse,
}

/// Everything `#[component(...)]` attributes can say about a type.
#[derive(Default)]
pub(crate) struct ComponentAttrs {
    /// `None`: the trait's default (table).
    pub storage: Option<Storage>,
    pub track_changes: bool,
    /// `immutable`: values are replaced whole, never written in place.
    pub immutable: bool,
    /// `properties`: list the fields as properties.
    pub properties: bool,
    /// `clone`: `World::clone_entity` copies values (the type is `Clone`).
    pub clone: bool,
    /// `movable`: `World::set_storage` may move the type between tables and sparse sets.
    pub movable: bool,
    /// `crate = "path"`.
    pub krate: Option<Path>,
    /// `requires(A, B = expr)`: the required types, each with its constructor expression
    /// (`None`: `Default`).
    pub requires: Vec<(Path, Option<syn::Expr>)>,
    /// `on_add = path`, ...: each lifecycle hook given, by its attribute name.
    pub hooks: Vec<(&'static str, Path)>,
}

/// The lifecycle hook attributes, in the order of `ComponentHooks`' fields.
pub(crate) const HOOKS: [&str; 5] = [
    "on_add",
    "on_insert",
    "on_replace",
    "on_remove",
    "on_despawn",
];

impl ComponentAttrs {
    /// Reads every `#[component(...)]` of the type; other attributes are ignored.
    pub(crate) fn parse(attrs: &[Attribute]) -> syn::Result<ComponentAttrs> {
        let mut out = ComponentAttrs::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("component")) {
            attr.parse_nested_meta(|meta| out.parse_one(meta))?;
        }
        Ok(out)
    }

    fn parse_one(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        if meta.path.is_ident("storage") {
            if self.storage.is_some() {
                return Err(meta.error("`storage` is given twice"));
            }
            let value: LitStr = meta.value()?.parse()?;
            self.storage = Some(match value.value().as_str() {
                "table" => Storage::Table,
                "sparse" => Storage::Sparse,
                other => {
                    return Err(syn::Error::new(
                        value.span(),
                        format!("unknown storage \"{other}\": expected \"table\" or \"sparse\""),
                    ))
                }
            });
        } else if meta.path.is_ident("track_changes") {
            parse_flag(&meta, "track_changes", &mut self.track_changes)?;
        } else if meta.path.is_ident("immutable") {
            parse_flag(&meta, "immutable", &mut self.immutable)?;
        } else if meta.path.is_ident("properties") {
            parse_flag(&meta, "properties", &mut self.properties)?;
        } else if meta.path.is_ident("clone") {
            parse_flag(&meta, "clone", &mut self.clone)?;
        } else if meta.path.is_ident("movable") {
            parse_flag(&meta, "movable", &mut self.movable)?;
        } else if meta.path.is_ident("crate") {
            parse_crate(&meta, &mut self.krate)?;
        } else if meta.path.is_ident("requires") {
            self.parse_requires(&meta)?;
        } else if let Some(&hook) = HOOKS.iter().find(|h| meta.path.is_ident(h)) {
            if self.hooks.iter().any(|(h, _)| *h == hook) {
                return Err(meta.error(format!("`{hook}` is given twice")));
            }
            if !meta.input.peek(syn::Token![=]) {
                return Err(meta.error(format!(
                    "`{hook}` names the hook function: write `{hook} = path::to::function`"
                )));
            }
            let path: Path = meta.value()?.parse()?;
            self.hooks.push((hook, path));
        } else {
            return Err(meta.error(format!(
                "unknown component attribute `{}`: expected `storage = \"table\"`, \
                 `storage = \"sparse\"`, `track_changes`, `immutable`, `properties`, \
                 `clone`, `movable`, `requires(..)`, `on_add = hook` (also `on_insert`, `on_replace`, \
                 `on_remove`, `on_despawn`) or `crate = \"path\"`",
                meta.path.to_token_stream()
            )));
        }
        Ok(())
    }
}

impl ComponentAttrs {
    /// `requires(A, B = expr, ..)`: each a type path, made by `Default` or by the expression.
    fn parse_requires(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        if !meta.input.peek(syn::token::Paren) {
            return Err(meta.error(
                "`requires` lists the required types: write `requires(Pos, Vel = Vel(1.0))`",
            ));
        }
        meta.parse_nested_meta(|required| {
            let path = required.path.clone();
            let text = path.to_token_stream().to_string();
            if self
                .requires
                .iter()
                .any(|(p, _)| p.to_token_stream().to_string() == text)
            {
                return Err(required.error(format!("`{text}` is required twice")));
            }
            let make = match required.input.peek(syn::Token![=]) {
                true => Some(required.value()?.parse::<syn::Expr>()?),
                false => None,
            };
            self.requires.push((path, make));
            Ok(())
        })
    }
}

/// A flag attribute (`track_changes`, `immutable`, `properties`, `clone`, `movable`): no value, given
/// once.
fn parse_flag(meta: &ParseNestedMeta<'_>, name: &str, slot: &mut bool) -> syn::Result<()> {
    if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        return Err(meta.error(format!("`{name}` takes no value: write `{name}`")));
    }
    if *slot {
        return Err(meta.error(format!("`{name}` is given twice")));
    }
    *slot = true;
    Ok(())
}

/// What `#[property(...)]` on a field of a `#[component(properties)]` type says.
#[derive(Default)]
pub(crate) struct PropertyAttrs {
    /// `skip`: not a property.
    pub skip: bool,
    /// `name = "..."`: the property's name instead of the field's.
    pub name: Option<LitStr>,
}

impl PropertyAttrs {
    /// Reads every `#[property(...)]` of a field.
    pub(crate) fn parse(attrs: &[Attribute]) -> syn::Result<PropertyAttrs> {
        let mut out = PropertyAttrs::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("property")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("skip") {
                    parse_flag(&meta, "skip", &mut out.skip)
                } else if meta.path.is_ident("name") {
                    if out.name.is_some() {
                        return Err(meta.error("`name` is given twice"));
                    }
                    out.name = Some(meta.value()?.parse()?);
                    Ok(())
                } else {
                    Err(meta.error(format!(
                        "unknown property attribute `{}`: expected `skip` or `name = \"...\"`",
                        meta.path.to_token_stream()
                    )))
                }
            })?;
        }
        Ok(out)
    }
}

/// What `#[bundle(...)]` on a struct can say.
#[derive(Default)]
pub(crate) struct BundleAttrs {
    /// `crate = "path"`.
    pub krate: Option<Path>,
}

impl BundleAttrs {
    /// Reads every `#[bundle(...)]` of the struct itself (a bare `#[bundle]` belongs on a
    /// field, and is an error here).
    pub(crate) fn parse(attrs: &[Attribute]) -> syn::Result<BundleAttrs> {
        let mut out = BundleAttrs::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("bundle")) {
            if let syn::Meta::Path(path) = &attr.meta {
                return Err(syn::Error::new_spanned(
                    path,
                    "a bare `#[bundle]` marks a nested bundle field; on the struct, \
                     `#[bundle(...)]` takes `crate = \"path\"`",
                ));
            }
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("crate") {
                    parse_crate(&meta, &mut out.krate)
                } else {
                    Err(meta.error(format!(
                        "unknown bundle attribute `{}`: on the struct, expected \
                         `crate = \"path\"`",
                        meta.path.to_token_stream()
                    )))
                }
            })?;
        }
        Ok(out)
    }
}

/// Whether a field is marked `#[bundle]` (a nested bundle); anything but a bare, single
/// `#[bundle]` is an error.
pub(crate) fn is_nested_bundle(attrs: &[Attribute]) -> syn::Result<bool> {
    let mut marked = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("bundle")) {
        if !matches!(attr.meta, syn::Meta::Path(_)) {
            return Err(syn::Error::new_spanned(
                &attr.meta,
                "on a field, `#[bundle]` takes no arguments: it marks a nested bundle",
            ));
        }
        if marked {
            return Err(syn::Error::new_spanned(
                &attr.meta,
                "`#[bundle]` is given twice",
            ));
        }
        marked = true;
    }
    Ok(marked)
}

/// `crate = "path"`, once.
pub(crate) fn parse_crate(meta: &ParseNestedMeta<'_>, slot: &mut Option<Path>) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error("`crate` is given twice"));
    }
    let value: LitStr = meta.value()?.parse()?;
    let path = value.parse::<Path>().map_err(|_| {
        syn::Error::new(
            value.span(),
            format!(
                "`crate = \"{}\"` is not a path: expected e.g. `crate = \"my_ecs::ecs_core\"`",
                value.value()
            ),
        )
    })?;
    *slot = Some(path);
    Ok(())
}

/// The path generated code starts from: the `crate = "..."` override, else the derive's root.
pub(crate) fn root_path(krate: Option<&Path>, root: Root) -> TokenStream2 {
    match krate {
        Some(path) => path.to_token_stream(),
        None => root.path(),
    }
}

/// A span for names the generated code introduces (locals, parameters): `mixed_site`, so
/// they cannot capture or shadow the user's names (a field called `visitor`, say).
pub(crate) fn hygienic() -> Span {
    Span::mixed_site()
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn component(attrs: Vec<Attribute>) -> syn::Result<ComponentAttrs> {
        ComponentAttrs::parse(&attrs)
    }

    #[test]
    fn component_defaults_and_each_key() {
        let none = component(vec![parse_quote!(#[derive(Debug)])]).unwrap();
        assert_eq!(none.storage, None);
        assert!(!none.track_changes && none.krate.is_none());

        let all = component(vec![
            parse_quote!(#[component(storage = "sparse", track_changes)]),
            parse_quote!(#[component(crate = "my_ecs::ecs_core")]),
        ])
        .unwrap();
        assert_eq!(all.storage, Some(Storage::Sparse));
        assert!(all.track_changes && !all.immutable);
        let frozen = component(vec![parse_quote!(#[component(immutable)])]).unwrap();
        assert!(frozen.immutable && !frozen.track_changes);
        let krate = all.krate.unwrap();
        assert_eq!(krate.to_token_stream().to_string(), "my_ecs :: ecs_core");

        let table = component(vec![parse_quote!(#[component(storage = "table")])]).unwrap();
        assert_eq!(table.storage, Some(Storage::Table));
    }

    fn component_error(attr: Attribute) -> String {
        match component(vec![attr]) {
            Ok(_) => panic!("accepted"),
            Err(err) => err.to_string(),
        }
    }

    #[test]
    fn clone_is_a_flag() {
        let attrs = component(vec![parse_quote!(#[component(clone, track_changes)])]).unwrap();
        assert!(attrs.clone && attrs.track_changes);
        let attrs = component(vec![parse_quote!(#[component(movable)])]).unwrap();
        assert!(attrs.movable && !attrs.clone);
        let twice = component(vec![parse_quote!(#[component(clone, clone)])]);
        assert!(twice
            .err()
            .unwrap()
            .to_string()
            .contains("`clone` is given twice"));
    }

    #[test]
    fn requires_lists_types_and_constructors() {
        let attrs = component(vec![parse_quote!(
            #[component(requires(Transform, render::Visibility = Visibility::hidden()))]
        )])
        .unwrap();
        let listed: Vec<(String, bool)> = attrs
            .requires
            .iter()
            .map(|(path, make)| (path.to_token_stream().to_string(), make.is_some()))
            .collect();
        assert_eq!(
            listed,
            [
                ("Transform".to_owned(), false),
                ("render :: Visibility".to_owned(), true)
            ]
        );
    }

    #[test]
    fn component_mistakes_are_errors() {
        let cases: Vec<(Attribute, &str)> = vec![
            (
                parse_quote!(#[component(requires(A, A = A(1)))]),
                "`A` is required twice",
            ),
            (
                parse_quote!(#[component(requires = A)]),
                "`requires` lists the required types",
            ),
            (
                parse_quote!(#[component(storage = "dense")]),
                "unknown storage \"dense\"",
            ),
            (
                parse_quote!(#[component(storage = sparse)]),
                "expected string literal",
            ),
            (
                parse_quote!(#[component(storage = "table", storage = "sparse")]),
                "`storage` is given twice",
            ),
            (
                parse_quote!(#[component(track_changes = true)]),
                "`track_changes` takes no value",
            ),
            (
                parse_quote!(#[component(track_changes, track_changes)]),
                "`track_changes` is given twice",
            ),
            (
                parse_quote!(#[component(sparse)]),
                "unknown component attribute `sparse`",
            ),
            (
                parse_quote!(#[component(crate = "not a path")]),
                "is not a path",
            ),
            (parse_quote!(#[component]), "expected attribute arguments"),
        ];
        for (attr, expected) in cases {
            let message = component_error(attr);
            assert!(
                message.contains(expected),
                "{message:?} should contain {expected:?}"
            );
        }
    }

    #[test]
    fn bundle_struct_and_field_attributes() {
        let attrs: Vec<Attribute> = vec![parse_quote!(#[bundle(crate = "::ecs::ecs_core")])];
        let parsed = BundleAttrs::parse(&attrs).unwrap();
        assert_eq!(
            parsed.krate.unwrap().to_token_stream().to_string(),
            ":: ecs :: ecs_core"
        );
        let bare: Vec<Attribute> = vec![parse_quote!(#[bundle])];
        let err = BundleAttrs::parse(&bare).err().unwrap().to_string();
        assert!(err.contains("marks a nested bundle field"), "{err}");
        let unknown: Vec<Attribute> = vec![parse_quote!(#[bundle(flatten)])];
        let err = BundleAttrs::parse(&unknown).err().unwrap().to_string();
        assert!(err.contains("unknown bundle attribute `flatten`"), "{err}");

        assert!(is_nested_bundle(&bare).unwrap());
        assert!(!is_nested_bundle(&[parse_quote!(#[doc = "x"])]).unwrap());
        let with_args: Vec<Attribute> = vec![parse_quote!(#[bundle(flatten)])];
        let err = is_nested_bundle(&with_args).err().unwrap().to_string();
        assert!(err.contains("takes no arguments"), "{err}");
        let twice: Vec<Attribute> = vec![parse_quote!(#[bundle]), parse_quote!(#[bundle])];
        let err = is_nested_bundle(&twice).err().unwrap().to_string();
        assert!(err.contains("given twice"), "{err}");
    }
}
