// SPDX-License-Identifier: MIT
// Position-level static and kinetic friction (Macklin et al. 2014, "Unified Particle
// Physics"; seed 004 eq. 33.2.4-33.2.5), applied right after a contact is resolved.
#include "constraints.h"

// The tangential part of the relative displacement over the substep is removed entirely
// while it is within the static cone (|dp_t| < mu_s d, d the penetration just resolved), and
// reduced by mu_k d otherwise: over a substep h a resting contact's d is its normal
// acceleration times h^2, so this is Coulomb's law in position form.
pbd_v3 pbd_friction_correction(pbd_v3 relative_displacement, pbd_v3 normal, float depth, float mu_s, float mu_k)
{
	pbd_v3 tangential = v3_mad(relative_displacement, normal, -v3_dot(relative_displacement, normal));
	float len = v3_len(tangential);
	if (len <= 0.0f || depth <= 0.0f)
		return v3(0, 0, 0);
	if (len < mu_s * depth)
		return v3_scale(tangential, -1.0f);
	return v3_scale(tangential, -fminf(mu_k * depth / len, 1.0f));
}
