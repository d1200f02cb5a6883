//! `#[derive(Component)]`.

use proc_macro2::TokenStream as TokenStream2;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, LitStr, Member};

use crate::attrs::{root_path, ComponentAttrs, PropertyAttrs, Storage};
use crate::bounds::where_clause;
use crate::Root;

/// The `Component` impl: the trait's defaults, overridden where an attribute says so.
pub(crate) fn derive(input: &DeriveInput, root: Root) -> syn::Result<TokenStream2> {
    let attrs = ComponentAttrs::parse(&input.attrs)?;
    let root = root_path(attrs.krate.as_ref(), root);
    let name = &input.ident;
    refuse_self_requirement(name, &attrs.requires)?;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let where_clause = where_clause(&input.generics, []);
    let storage = attrs.storage.map(|storage| {
        let kind = match storage {
            Storage::Table => quote!(Table),
            Storage::Sparse => quote!(Sparse),
        };
        quote! {
            const STORAGE: #root::component::StorageKind = #root::component::StorageKind::#kind;
        }
    });
    let mutability = match (attrs.immutable, attrs.track_changes) {
        (false, false) => quote!(#root::component::Mutable),
        (false, true) => quote!(#root::component::Tracked),
        (true, false) => quote!(#root::component::Immutable),
        (true, true) => quote!(#root::component::Immutable<#root::component::Tracked>),
    };
    let properties = match attrs.properties {
        true => Some(properties(input, &root)?),
        false => None,
    };
    let requirements = requirements(&attrs.requires, &root);
    let clone = attrs.clone.then(|| {
        quote! {
            const CLONE: ::core::option::Option<#root::component::CloneFn> =
                ::core::option::Option::Some(#root::component::clone_value::<Self>);
        }
    });
    let hooks = hooks(&attrs.hooks, &root);
    let movable = attrs.movable.then(|| {
        quote!(
            const MOVABLE: bool = true;
        )
    });
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #root::component::Component for #name #ty_generics #where_clause {
            type Mutability = #mutability;
            #storage
            #properties
            #requirements
            #clone
            #movable
            #hooks
        }
    })
}

/// `HOOKS` for `on_add = path, ...`: each function coerced to a hook where it is named, so
/// a wrong signature is reported at its path.
fn hooks(hooks: &[(&'static str, syn::Path)], root: &TokenStream2) -> Option<TokenStream2> {
    if hooks.is_empty() {
        return None;
    }
    let fields = hooks.iter().map(|(name, path)| {
        let field = syn::Ident::new(name, path.span());
        quote! { #field: #root::component::hooks::hook(#path) }
    });
    // With every slot given, a `..NONE` would trip clippy's `needless_update` in the
    // user's crate.
    let rest = (hooks.len() < crate::attrs::HOOKS.len())
        .then(|| quote!(..#root::component::ComponentHooks::NONE));
    Some(quote! {
        const HOOKS: #root::component::ComponentHooks = #root::component::ComponentHooks {
            #(#fields,)*
            #rest
        };
    })
}

/// `REQUIRES` and `requirements` for `requires(A, B = expr)`: each required type made by
/// `Default` (a missing impl is reported at the type's path) or by its expression.
fn requirements(
    requires: &[(syn::Path, Option<syn::Expr>)],
    root: &TokenStream2,
) -> Option<TokenStream2> {
    if requires.is_empty() {
        return None;
    }
    let calls = requires.iter().map(|(path, make)| match make {
        Some(make) => quote_spanned! {make.span()=>
            requirements.require::<#path>(|| #make);
        },
        None => quote_spanned! {path.span()=>
            requirements.require::<#path>(<#path as ::core::default::Default>::default);
        },
    });
    Some(quote! {
        const REQUIRES: bool = true;
        fn requirements(requirements: &mut #root::component::Requirements<'_>) {
            #(#calls)*
        }
    })
}

/// `const PROPERTIES`: one `Property` per field (by `offset_of!`), except `#[property(skip)]`
/// ones. A field whose type is not a property type fails to compile at its type. A packed
/// struct is refused: its fields may be unaligned, and properties are read as aligned values.
fn properties(input: &DeriveInput, root: &TokenStream2) -> syn::Result<TokenStream2> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "`#[component(properties)]` lists a struct's fields; enums and unions have none",
        ));
    };
    if let Some(packed) = packed_repr(input) {
        return Err(syn::Error::new_spanned(
            packed,
            "`#[component(properties)]` cannot list the fields of a `#[repr(packed)]` struct: \
             they may be unaligned, and properties are read and written as aligned values",
        ));
    }
    let mut entries = Vec::new();
    for (i, field) in data.fields.iter().enumerate() {
        let attrs = PropertyAttrs::parse(&field.attrs)?;
        if attrs.skip {
            continue;
        }
        let member = field
            .ident
            .clone()
            .map_or_else(|| Member::from(i), Member::Named);
        let name = attrs.name.unwrap_or_else(|| {
            let text = match &member {
                Member::Named(ident) => ident.to_string(),
                Member::Unnamed(index) => index.index.to_string(),
            };
            LitStr::new(&text, field.span())
        });
        let ty = &field.ty;
        // SAFETY (of the generated `unsafe`): the offset is `offset_of!` of this very field,
        // whose type is `#ty`.
        entries.push(quote_spanned! {ty.span()=>
            unsafe {
                #root::properties::Property::<Self>::new::<#ty>(
                    #name,
                    ::core::mem::offset_of!(Self, #member),
                )
            }
        });
    }
    Ok(quote! {
        #[allow(unsafe_code)]
        const PROPERTIES: ::core::option::Option<
            &'static [#root::properties::Property<Self>]
        > = ::core::option::Option::Some(&[#(#entries),*]);
    })
}

/// The `#[repr(...)]` attribute that packs the type, if any (`packed` or `packed(N)`).
fn packed_repr(input: &DeriveInput) -> Option<&syn::Attribute> {
    input.attrs.iter().find(|attr| {
        if !attr.path().is_ident("repr") {
            return false;
        }
        let mut packed = false;
        // A malformed `repr` is the compiler's to report; here it only is not `packed`.
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("packed") {
                packed = true;
            }
            if meta.input.peek(syn::token::Paren) {
                let _ = meta.input.parse::<proc_macro2::Group>();
            }
            Ok(())
        });
        packed
    })
}

/// A type that requires itself (`requires(Self)` or its own name) is the one requirement
/// cycle the derive can see: refused here, at the path, rather than when the type is first
/// registered. (Longer cycles span several types' derives; registration reports them.)
fn refuse_self_requirement(
    name: &syn::Ident,
    requires: &[(syn::Path, Option<syn::Expr>)],
) -> syn::Result<()> {
    for (path, _) in requires {
        let is_self = path.is_ident("Self") || path.is_ident(name);
        if is_self {
            return Err(syn::Error::new(
                path.span(),
                format!("`{name}` requires itself: a requirement cycle (`{name}` -> `{name}`)"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn expand(input: DeriveInput, root: Root) -> String {
        derive(&input, root).unwrap().to_string()
    }

    #[test]
    fn plain_component_keeps_the_defaults() {
        let out = expand(
            parse_quote!(
                struct Pos(f32);
            ),
            Root::Core,
        );
        assert!(
            out.contains("impl :: ecs_core :: component :: Component for Pos"),
            "{out}"
        );
        assert!(!out.contains("STORAGE"), "{out}");
        assert!(
            out.contains("type Mutability = :: ecs_core :: component :: Mutable ;"),
            "{out}"
        );
    }

    #[test]
    fn attributes_become_constants_under_the_chosen_root() {
        let out = expand(
            parse_quote! {
                #[component(storage = "sparse")]
                #[component(track_changes)]
                enum State { Idle, Busy(u8) }
            },
            Root::Facade,
        );
        assert!(
            out.contains(
                "const STORAGE : :: ecs :: ecs_core :: component :: StorageKind = \
             :: ecs :: ecs_core :: component :: StorageKind :: Sparse ;"
            ),
            "{out}"
        );
        assert!(
            out.contains("type Mutability = :: ecs :: ecs_core :: component :: Tracked ;"),
            "{out}"
        );
        let frozen = expand(
            parse_quote! {
                #[component(immutable, track_changes)]
                struct Link(u32);
            },
            Root::Core,
        );
        assert!(
            frozen.contains(
                "type Mutability = :: ecs_core :: component :: Immutable < :: ecs_core :: \
                 component :: Tracked > ;"
            ),
            "{frozen}"
        );
        let renamed = expand(
            parse_quote!(
                #[component(crate = "my_ecs::ecs_core", storage = "table")]
                struct A;
            ),
            Root::Core,
        );
        assert!(renamed.contains("impl my_ecs :: ecs_core :: component :: Component for A"));
        assert!(renamed.contains("StorageKind :: Table"), "{renamed}");
    }

    #[test]
    fn generics_and_where_clauses_are_kept() {
        let out = expand(
            parse_quote!(
                struct Wrap<'a, T: Clone, const N: usize>([&'a T; N])
                where
                    T: Copy;
            ),
            Root::Core,
        );
        assert!(
            out.contains(
                "impl < 'a , T : Clone , const N : usize > :: ecs_core :: component :: \
                 Component for Wrap < 'a , T , N > where T : Copy , Self : :: core :: marker \
                 :: Send + :: core :: marker :: Sync + 'static"
            ),
            "{out}"
        );
    }

    #[test]
    fn properties_list_fields_by_offset() {
        let out = expand(
            parse_quote! {
                #[component(properties)]
                struct Fog {
                    density: f32,
                    #[property(skip)]
                    cache: Vec<u8>,
                    #[property(name = "colour")]
                    tint: [f32; 3],
                }
            },
            Root::Core,
        );
        assert!(out.contains("const PROPERTIES"), "{out}");
        assert!(out.contains("new :: < f32 > (\"density\""), "{out}");
        assert!(out.contains("\"colour\""), "{out}");
        assert!(out.contains("offset_of ! (Self , tint)"), "{out}");
        assert!(!out.contains("cache"), "{out}");
        let tuple = expand(
            parse_quote! {
                #[component(properties)]
                struct Pair(u8, bool);
            },
            Root::Core,
        );
        assert!(tuple.contains("\"1\"") && tuple.contains("offset_of ! (Self , 1)"));
        let err = derive(
            &parse_quote! {
                #[component(properties)]
                enum E { A }
            },
            Root::Core,
        )
        .err()
        .unwrap();
        assert!(err.to_string().contains("enums and unions have none"));
    }

    #[test]
    fn properties_of_a_packed_struct_are_refused() {
        for input in [
            parse_quote! {
                #[component(properties)]
                #[repr(C, packed)]
                struct P { a: u8, s: String }
            },
            parse_quote! {
                #[repr(packed(2))]
                #[component(properties)]
                struct Q { a: u8, b: u32 }
            },
        ] {
            let err = derive(&input, Root::Core).expect_err("refused");
            assert!(err.to_string().contains("`#[repr(packed)]`"), "{err}");
        }
        let aligned: DeriveInput = parse_quote! {
            #[component(properties)]
            #[repr(C, align(8))]
            struct R { a: u8 }
        };
        assert!(derive(&aligned, Root::Core).is_ok());
    }

    #[test]
    fn bad_attribute_is_an_error_not_a_panic() {
        let input: DeriveInput = parse_quote!(
            #[component(storage = "heap")]
            struct A;
        );
        let err = derive(&input, Root::Core).err().unwrap();
        assert!(err.to_string().contains("unknown storage \"heap\""));
        assert!(err.to_compile_error().to_string().contains("compile_error"));
    }
}
