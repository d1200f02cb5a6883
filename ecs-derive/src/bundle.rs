//! `#[derive(Bundle)]`.
//!
//! The generated impl is the one place the derive writes `unsafe`: `Bundle`'s contract asks
//! that `visit` hands over field `i` of the flattened list exactly once, as the type
//! `component_ids` registered at `i`, and that `COUNT` is the length of that list. Both
//! methods and the constant are generated from one list of fields ([`Field`]), walked in the
//! same order, with one count per field (1 for a component, the nested `COUNT` for a
//! `#[bundle]` field) that also gives each field's first index.

use proc_macro2::{Group, Ident, Span, TokenStream as TokenStream2, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Member, Type, WherePredicate};

use crate::attrs::{hygienic, is_nested_bundle, root_path, BundleAttrs};
use crate::bounds::where_clause;
use crate::Root;

/// One field of the struct, as the generated methods see it.
struct Field<'a> {
    /// `a` or `0`: how patterns and constructors name it.
    member: Member,
    ty: &'a Type,
    /// Marked `#[bundle]`: a nested bundle, flattened.
    nested: bool,
    /// The local the field is moved into.
    binding: Ident,
}

/// The `Bundle` impl for a struct; an error for enums and unions.
pub(crate) fn derive(input: &DeriveInput, root: Root) -> syn::Result<TokenStream2> {
    let data = match &input.data {
        Data::Struct(data) => data,
        Data::Enum(data) => {
            return Err(syn::Error::new(
                data.enum_token.span(),
                "`#[derive(Bundle)]` needs a struct: a bundle is a set of components stored \
                 together, and an enum holds one variant at a time (derive `Component` to \
                 store the enum as one component)",
            ))
        }
        Data::Union(data) => {
            return Err(syn::Error::new(
                data.union_token.span(),
                "`#[derive(Bundle)]` needs a struct: a union's fields are not all present at \
                 once",
            ))
        }
    };
    let attrs = BundleAttrs::parse(&input.attrs)?;
    let root = root_path(attrs.krate.as_ref(), root);
    let fields = data
        .fields
        .iter()
        .enumerate()
        .map(|(i, field)| {
            Ok(Field {
                member: field
                    .ident
                    .clone()
                    .map_or_else(|| Member::from(i), Member::Named),
                ty: &field.ty,
                nested: is_nested_bundle(&field.attrs)?,
                binding: format_ident!("__ecs_field_{}", i, span = hygienic()),
            })
        })
        .collect::<syn::Result<Vec<_>>>()?;

    // Every field's type is bounded, generic or not: a field that is not a component (or
    // not a bundle, for `#[bundle]`) is then one error, at the field's type, instead of one
    // per use in the generated methods.
    let bounds = fields.iter().map(|f| field_bound(f, &root));
    let where_clause = where_clause(&input.generics, bounds.collect::<Vec<_>>());
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let name = &input.ident;
    let body = methods(&fields, &root);
    Ok(quote! {
        #[automatically_derived]
        #[allow(unsafe_code)]
        // SAFETY: `component_ids`, `visit`, `value_ptrs` and `COUNT` are generated from one
        // field list walked in one order; each field's index is the sum of the counts
        // before it, and `value_ptrs` points at each field in place.
        unsafe impl #impl_generics #root::bundle::Bundle for #name #ty_generics #where_clause {
            #body
        }
    })
}

/// `T: Component` (or `B: Bundle` for a nested bundle) for a field, spanned on the field's
/// type so an unmet bound points there.
fn field_bound(field: &Field<'_>, root: &TokenStream2) -> WherePredicate {
    let ty = field.ty;
    // The root's own tokens are respanned too: a predicate whose tokens come from two
    // places is reported at the derive instead of at the field.
    let root = respan(root.clone(), ty.span());
    let tokens = if field.nested {
        quote_spanned!(ty.span()=> #ty: #root::bundle::Bundle)
    } else {
        quote_spanned!(ty.span()=> #ty: #root::component::Component)
    };
    syn::parse2(tokens).expect("a type and a trait path make a where-predicate")
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream2, span: Span) -> TokenStream2 {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// The trait's items, generated field by field.
fn methods(fields: &[Field<'_>], root: &TokenStream2) -> TokenStream2 {
    let bundle = quote!(#root::bundle::Bundle);
    // Parameters the generated bodies use (hygienic: user names cannot shadow them).
    let components = Ident::new("components", hygienic());
    let out = Ident::new("out", hygienic());
    let visitor = Ident::new("visitor", hygienic());
    let inserter = Ident::new("inserter", hygienic());
    let source = Ident::new("source", hygienic());

    let counts: Vec<TokenStream2> = fields
        .iter()
        .map(|f| {
            let ty = f.ty;
            if f.nested {
                quote_spanned!(ty.span()=> <#ty as #bundle>::COUNT)
            } else {
                quote!(1)
            }
        })
        .collect();
    // Field `i`'s first index in the flattened list: the counts of the fields before it.
    let firsts: Vec<TokenStream2> = (0..fields.len())
        .map(|i| match &counts[..i] {
            [] => quote!(0),
            before => quote!(#(#before)+*),
        })
        .collect();
    let count = if fields.is_empty() {
        quote!(0)
    } else {
        quote!(#(#counts)+*)
    };

    let tracks: Vec<TokenStream2> = fields
        .iter()
        .map(|f| {
            let ty = f.ty;
            if f.nested {
                quote_spanned!(ty.span()=> <#ty as #bundle>::TRACKS_CHANGES)
            } else {
                quote_spanned!(ty.span()=> #root::component::tracks_changes::<#ty>())
            }
        })
        .collect();
    let tracks = if fields.is_empty() {
        quote!(false)
    } else {
        quote!(#(#tracks)||*)
    };

    let mut replaced = Vec::new();
    let mut register = Vec::new();
    let mut visit = Vec::new();
    let mut insert = Vec::new();
    let mut take = Vec::new();
    let mut ptrs = Vec::new();
    let this = Ident::new("this", hygienic());
    for (field, first) in fields.iter().zip(&firsts) {
        let (ty, binding, member) = (field.ty, &field.binding, &field.member);
        // SAFETY (of the generated `unsafe`): `this` points to a valid `Self` (the method's
        // contract), so the field's address is in bounds and not null; a nested bundle's
        // own `value_ptrs` has the same contract for its field.
        let field_ptr = quote_spanned! {ty.span()=>
            ::core::ptr::NonNull::new_unchecked(::core::ptr::addr_of_mut!((*#this.as_ptr()).#member))
        };
        if field.nested {
            ptrs.push(quote_spanned! {ty.span()=>
                unsafe { <#ty as #bundle>::value_ptrs(#field_ptr, #out) };
            });
        } else {
            ptrs.push(quote_spanned! {ty.span()=>
                #out(unsafe { #field_ptr }.cast::<u8>());
            });
        }
        if field.nested {
            replaced.push(quote_spanned!(ty.span()=> <#ty as #bundle>::Replaced));
            register.push(quote_spanned! {ty.span()=>
                <#ty as #bundle>::component_ids(#components, #out);
            });
            visit.push(quote_spanned! {ty.span()=>
                <#ty as #bundle>::visit(
                    #binding,
                    &mut #root::bundle::OffsetVisitor::new(&mut *#visitor, #first),
                );
            });
            insert.push(
                quote_spanned!(ty.span()=> <#ty as #bundle>::insert_into(#binding, #inserter)),
            );
            take.push(quote_spanned!(ty.span()=> #member: <#ty as #bundle>::take_from(#source)?));
        } else {
            replaced.push(quote_spanned!(ty.span()=> ::core::option::Option<#ty>));
            register.push(quote_spanned! {ty.span()=>
                #out.push(#root::component::Components::register::<#ty>(#components));
            });
            visit.push(quote_spanned! {ty.span()=>
                #root::bundle::BundleVisitor::visit::<#ty>(#visitor, #first, #binding);
            });
            insert.push(quote_spanned! {ty.span()=>
                #root::bundle::ComponentInserter::insert::<#ty>(#inserter, #binding)
            });
            take.push(quote_spanned! {ty.span()=>
                #member: #root::bundle::ComponentSource::take::<#ty>(#source)?
            });
        }
    }
    let members = fields.iter().map(|f| &f.member);
    let bindings = fields.iter().map(|f| &f.binding);
    let pattern = quote!(Self { #(#members: #bindings),* });
    // With no fields, `Replaced` is `()`: end the body without a `()` (clippy's
    // `unused_unit` would fire in the user's crate).
    let requires: Vec<TokenStream2> = fields
        .iter()
        .map(|f| {
            let ty = f.ty;
            if f.nested {
                quote_spanned!(ty.span()=> <#ty as #bundle>::REQUIRES)
            } else {
                quote_spanned!(ty.span()=> <#ty as #root::component::Component>::REQUIRES)
            }
        })
        .collect();
    let requires = if fields.is_empty() {
        quote!(false)
    } else {
        quote!(#(#requires)||*)
    };
    let hooked: Vec<TokenStream2> = fields
        .iter()
        .map(|f| {
            let ty = f.ty;
            if f.nested {
                quote_spanned!(ty.span()=> <#ty as #bundle>::HOOKED)
            } else {
                quote_spanned!(ty.span()=>
                    <#ty as #root::component::Component>::HOOKS.any()
                        || <#ty as #root::component::Component>::REQUIRES)
            }
        })
        .collect();
    let hooked = if fields.is_empty() {
        quote!(false)
    } else {
        quote!(#(#hooked)||*)
    };
    let replaced_value = if fields.is_empty() {
        quote!()
    } else {
        quote!((#(#insert,)*))
    };

    quote! {
        const COUNT: usize = #count;
        const TRACKS_CHANGES: bool = #tracks;
        const REQUIRES: bool = #requires;
        const HOOKED: bool = #hooked;
        type Replaced = (#(#replaced,)*);

        fn component_ids(
            #components: &mut #root::component::Components,
            #out: &mut ::std::vec::Vec<#root::component::ComponentId>,
        ) {
            #(#register)*
        }

        #[inline(always)]
        #[allow(unused_variables)]
        unsafe fn value_ptrs(
            #this: ::core::ptr::NonNull<Self>,
            #out: &mut dyn ::core::ops::FnMut(::core::ptr::NonNull<u8>),
        ) {
            #(#ptrs)*
        }

        #[inline(always)]
        fn visit(self, #visitor: &mut impl #root::bundle::BundleVisitor) {
            let #pattern = self;
            #(#visit)*
        }

        #[inline(always)]
        fn insert_into(
            self,
            #inserter: &mut impl #root::bundle::ComponentInserter,
        ) -> Self::Replaced {
            let #pattern = self;
            #replaced_value
        }

        #[inline(always)]
        fn take_from(
            #source: &mut impl #root::bundle::ComponentSource,
        ) -> ::core::result::Result<Self, #root::error::EcsError> {
            ::core::result::Result::Ok(Self { #(#take),* })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn expand(input: DeriveInput) -> String {
        derive(&input, Root::Core).unwrap().to_string()
    }

    fn error(input: DeriveInput) -> String {
        derive(&input, Root::Core).err().unwrap().to_string()
    }

    /// Token strings with the spaces `to_string` puts between tokens removed.
    fn squash(tokens: &str) -> String {
        tokens.split_whitespace().collect()
    }

    #[test]
    fn fields_are_flattened_with_running_offsets() {
        let out = squash(&expand(parse_quote! {
            struct Ship {
                name: Name,
                #[bundle]
                body: Body,
                hp: Hp,
            }
        }));
        assert!(
            out.contains("constCOUNT:usize=1+<Bodyas::ecs_core::bundle::Bundle>::COUNT+1;"),
            "{out}"
        );
        // `hp` comes after `name` (1) and `body`'s components.
        assert!(out.contains(
            "::ecs_core::bundle::BundleVisitor::visit::<Hp>(visitor,1+<Bodyas::ecs_core::bundle::Bundle>::COUNT,__ecs_field_2);"
        ), "{out}");
        assert!(
            out.contains(
                "::ecs_core::bundle::BundleVisitor::visit::<Name>(visitor,0,__ecs_field_0);"
            ),
            "{out}"
        );
        assert!(out.contains("OffsetVisitor::new(&mut*visitor,1)"), "{out}");
        assert!(out.contains(
            "typeReplaced=(::core::option::Option<Name>,<Bodyas::ecs_core::bundle::Bundle>::Replaced,::core::option::Option<Hp>,);"
        ), "{out}");
        assert!(
            out.contains("letSelf{name:__ecs_field_0,body:__ecs_field_1,hp:__ecs_field_2}=self;"),
            "{out}"
        );
        assert!(out.contains(
            "constTRACKS_CHANGES:bool=::ecs_core::component::tracks_changes::<Name>()||<Bodyas::ecs_core::bundle::Bundle>::TRACKS_CHANGES||::ecs_core::component::tracks_changes::<Hp>();"
        ), "{out}");
    }

    #[test]
    fn tuple_and_unit_structs() {
        let out = squash(&expand(parse_quote!(
            struct Pair(A, B);
        )));
        assert!(
            out.contains("letSelf{0:__ecs_field_0,1:__ecs_field_1}=self;"),
            "{out}"
        );
        assert!(
            out.contains("Ok(Self{0:::ecs_core::bundle::ComponentSource::take::<A>(source)?,"),
            "{out}"
        );
        let unit = squash(&expand(parse_quote!(
            struct Nothing;
        )));
        assert!(unit.contains("constCOUNT:usize=0;"), "{unit}");
        assert!(unit.contains("constTRACKS_CHANGES:bool=false;"), "{unit}");
        assert!(unit.contains("typeReplaced=();"), "{unit}");
        // No trailing `()` for clippy's `unused_unit` to flag in the user's crate.
        assert!(unit.contains("->Self::Replaced{letSelf{}=self;}"), "{unit}");
    }

    #[test]
    fn every_field_type_is_bounded() {
        let out = squash(&expand(parse_quote! {
            struct Tagged<T, B> where T: Clone {
                value: T,
                #[bundle]
                rest: B,
                pos: Pos,
            }
        }));
        assert!(out.contains(
            "whereT:Clone,Self:::core::marker::Send+::core::marker::Sync+'static,T:::ecs_core::component::Component,B:::ecs_core::bundle::Bundle,Pos:::ecs_core::component::Component{"
        ), "{out}");
    }

    #[test]
    fn enums_unions_and_bad_attributes_are_errors() {
        assert!(error(parse_quote!(
            enum E {
                A(X),
            }
        ))
        .contains("needs a struct"));
        assert!(error(parse_quote!(union U { a: u32 })).contains("union's fields"));
        let bad_field = error(parse_quote!(
            struct S {
                #[bundle(x)]
                a: A,
            }
        ));
        assert!(bad_field.contains("takes no arguments"), "{bad_field}");
        let bad_struct = error(parse_quote!(
            #[bundle(krate = "x")]
            struct S {
                a: A,
            }
        ));
        assert!(
            bad_struct.contains("unknown bundle attribute `krate`"),
            "{bad_struct}"
        );
    }

    #[test]
    fn crate_override_names_the_root() {
        let out = squash(&expand(parse_quote! {
            #[bundle(crate = "my_ecs::ecs_core")]
            struct S { a: A }
        }));
        assert!(
            out.contains("unsafeimplmy_ecs::ecs_core::bundle::BundleforS"),
            "{out}"
        );
    }
}
