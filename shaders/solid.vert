#version 330 core
// Colliders and particles: a unit mesh placed by a per-instance (or per-draw) model matrix.
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_instance;   // xyz centre, w scale (instanced spheres)
uniform mat4 u_view_proj;
uniform mat4 u_model;
uniform float u_instanced;
out vec3 v_position;
out vec3 v_normal;
void main()
{
	vec4 world;
	vec3 normal;
	if (u_instanced > 0.5) {
		world = vec4(in_instance.xyz + in_position * in_instance.w, 1.0);
		normal = in_normal;
	} else {
		world = u_model * vec4(in_position, 1.0);
		normal = mat3(u_model) * in_normal;
	}
	v_position = world.xyz;
	v_normal = normal;
	gl_Position = u_view_proj * world;
}
