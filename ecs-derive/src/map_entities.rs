//! `#[derive(MapEntities)]`: maps the fields that hold entity handles.

use proc_macro2::{Ident, TokenStream as TokenStream2};
use quote::{format_ident, quote, ToTokens};
use syn::{Attribute, Data, DeriveInput, Fields, GenericArgument, Path, PathArguments, Type};

use crate::attrs::{hygienic, parse_crate, root_path};
use crate::Root;

/// The `MapEntities` impl: each mapped field (see [`mapped`]) through its own impl.
pub(crate) fn derive(input: &DeriveInput, root: Root) -> syn::Result<TokenStream2> {
    let krate = type_attrs(&input.attrs)?;
    let root = root_path(krate.as_ref(), root);
    let trait_path = quote!(#root::snapshot::MapEntities);
    let mapper = Ident::new("mapper", hygienic());
    let mut bounds = Vec::new();
    let body = match &input.data {
        Data::Struct(data) => {
            let mut statements = Vec::new();
            for (i, field) in data.fields.iter().enumerate() {
                if !mapped(field, &mut bounds)? {
                    continue;
                }
                let member = match &field.ident {
                    Some(ident) => ident.to_token_stream(),
                    None => syn::Index::from(i).to_token_stream(),
                };
                statements.push(quote!(#trait_path::map_entities(&mut self.#member, #mapper);));
            }
            quote!(#(#statements)*)
        }
        Data::Enum(data) => {
            let mut arms = Vec::new();
            for variant in &data.variants {
                let name = &variant.ident;
                let mut binds = Vec::new();
                let mut statements = Vec::new();
                for (i, field) in variant.fields.iter().enumerate() {
                    if !mapped(field, &mut bounds)? {
                        continue;
                    }
                    let local = format_ident!("field_{}", i, span = hygienic());
                    let member = match &field.ident {
                        Some(ident) => ident.to_token_stream(),
                        None => syn::Index::from(i).to_token_stream(),
                    };
                    binds.push(quote!(#member: #local));
                    statements.push(quote!(#trait_path::map_entities(#local, #mapper);));
                }
                let pattern = match &variant.fields {
                    Fields::Unit => quote!(Self::#name),
                    _ => quote!(Self::#name { #(#binds,)* .. }),
                };
                arms.push(quote!(#pattern => { #(#statements)* }));
            }
            quote! {
                match self {
                    #(#arms)*
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
            }
        }
        Data::Union(_) => {
            return Err(syn::Error::new_spanned(
                &input.ident,
                "`MapEntities` cannot be derived for a union: which field holds a handle is \
                 known only at run time",
            ))
        }
    };
    let name = &input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let own = input
        .generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter())
        .map(ToTokens::to_token_stream);
    let extra = bounds.iter().map(|ty| quote!(#ty: #trait_path));
    let predicates: Vec<TokenStream2> = own.chain(extra).collect();
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #trait_path for #name #ty_generics where #(#predicates),* {
            #[allow(unused_variables)]
            fn map_entities(&mut self, #mapper: &mut dyn #root::snapshot::EntityMapper) {
                #body
            }
        }
    })
}

/// Whether `field` is mapped: it is marked `#[entities]`, or its type is `Entity`,
/// `Option<Entity>` or `Vec<Entity>` (recognised by name). A marked field's type is added
/// to `bounds` (it must implement the trait; for a generic type that is a where-clause).
fn mapped(field: &syn::Field, bounds: &mut Vec<Type>) -> syn::Result<bool> {
    let mut marked = false;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("entities")) {
        if !matches!(attr.meta, syn::Meta::Path(_)) {
            return Err(syn::Error::new_spanned(
                attr,
                "`#[entities]` on a field takes no arguments (it maps the field through its \
                 `MapEntities` impl)",
            ));
        }
        if marked {
            return Err(syn::Error::new_spanned(
                attr,
                "`#[entities]` is given twice",
            ));
        }
        marked = true;
    }
    if marked {
        bounds.push(field.ty.clone());
        return Ok(true);
    }
    Ok(holds_entities(&field.ty))
}

/// `Entity`, `Option<Entity>`, `Vec<Entity>` (any path ending so).
fn holds_entities(ty: &Type) -> bool {
    let Some(last) = last_segment(ty) else {
        return false;
    };
    if last.ident == "Entity" {
        return matches!(last.arguments, PathArguments::None);
    }
    if last.ident != "Option" && last.ident != "Vec" {
        return false;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(inner)] => last_segment(inner)
            .is_some_and(|s| s.ident == "Entity" && matches!(s.arguments, PathArguments::None)),
        _ => false,
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        Type::Group(group) => last_segment(&group.elem),
        Type::Paren(paren) => last_segment(&paren.elem),
        _ => None,
    }
}

/// `#[entities(crate = "path")]` on the type.
fn type_attrs(attrs: &[Attribute]) -> syn::Result<Option<Path>> {
    let mut krate = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("entities")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                parse_crate(&meta, &mut krate)
            } else {
                Err(meta.error(
                    "unknown attribute: on the type, `#[entities(...)]` takes `crate = \"path\"`",
                ))
            }
        })?;
    }
    Ok(krate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn recognises_handle_fields_by_type() {
        let yes: [Type; 5] = [
            parse_quote!(Entity),
            parse_quote!(ecs::Entity),
            parse_quote!(Option<Entity>),
            parse_quote!(Vec<ecs_core::Entity>),
            parse_quote!(std::option::Option<Entity>),
        ];
        for ty in &yes {
            assert!(holds_entities(ty), "{}", ty.to_token_stream());
        }
        let no: [Type; 5] = [
            parse_quote!(f32),
            parse_quote!(Vec<u32>),
            parse_quote!(Option<Option<Entity>>),
            parse_quote!(HashMap<Entity, u32>),
            parse_quote!(Entity<u8>),
        ];
        for ty in &no {
            assert!(!holds_entities(ty), "{}", ty.to_token_stream());
        }
    }
}
