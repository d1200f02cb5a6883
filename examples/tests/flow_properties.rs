//! The flow_properties example's exact output, including its error lines (the same on
//! every backend: CI runs this test once per backend feature).

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/flow_properties.rs"]
mod flow_properties;

const EXPECTED: &str = "\
> spawn fogbox
spawned 1
> spawn fogbox
spawned 2
> set 1 Fog density 0.25
Fog.density := 0.25
> get 1 Fog density
Fog.density = 0.25
> get 2 Fog density
Fog.density = 0.5
> get 1 Vignette intensity
Vignette.intensity = 0.3
> set 2 Transform position 1,2,3
Transform.position := (1, 2, 3)
> get 2 Transform position
Transform.position = (1, 2, 3)
> set 1 Label text \"fog bank\"
Label.text := fog bank
> get 1 Label text
Label.text = fog bank
> set 1 Transform visible false
Transform.visible := false
> changed
changed: 1 Fog, 1 Vignette, 2 Fog, 2 Vignette
> set 2 Vignette tint 0.5,0.5,1
Vignette.tint := (0.5, 0.5, 1)
> changed
changed: 2 Vignette
> changed
changed: nothing
> set 1 Fog density thick
error: `thick` is not an f32
> set 1 Fog density \"thick\"
error: `density` is an f32, not a string
> set 1 Smoke density 0.5
error: entity 1 has no instance `Smoke`
> get 1 Fog colour
error: no property `colour` there
> get 1 Collider size
error: that component has no properties
> remove 1 Fog
removed Fog from 1
> get 1 Fog density
error: entity 1 has no instance `Fog`
> list 1
1: Vignette
> list 2
2: Fog, Vignette
> despawn 2
despawned 2
> get 2 Transform position
error: entity 2 does not exist
> spawn crate
error: unknown template `crate`
";

#[test]
fn the_built_in_script_prints_exactly_this() {
    assert_eq!(flow_properties::run(flow_properties::SCRIPT), EXPECTED);
}

#[test]
fn mistakes_change_nothing() {
    let out = flow_properties::run(
        "spawn fogbox\nset 1 Fog density \"x\"\nset 1 Fog tint 1,2\nget 1 Fog density\nget 1 Fog tint\nset 9 Fog density 1",
    );
    assert_eq!(
        out,
        "> spawn fogbox\nspawned 1\n\
         > set 1 Fog density \"x\"\nerror: `density` is an f32, not a string\n\
         > set 1 Fog tint 1,2\nerror: `1,2` is not a vec3\n\
         > get 1 Fog density\nFog.density = 0.5\n\
         > get 1 Fog tint\nFog.tint = (1, 1, 1)\n\
         > set 9 Fog density 1\nerror: no entity 9\n"
    );
}
