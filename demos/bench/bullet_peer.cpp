// SPDX-License-Identifier: MIT
// pbd-bullet-peer: Bullet's btSoftBody cloth on the patch pbd-bench's `hang` uses (1 m square,
// N x N vertices, the two top corners pinned, a floor plane 1 m below the bottom edge; pbd's
// hang then brings its pins 30% closer over its first half second, these stay), at
// 60 frames per second, one Bullet step per frame with the given position iterations.
// Prints one line: `bullet res=N particles=P iterations=K ms_median=X ms_min=X ms_max=X`
// (means of the repetitions' frame times). Built only where Debian's libbullet-dev is.
//
//   pbd-bullet-peer --res N [--frames F] [--warmup W] [--reps R] [--iterations K] [--self]
#include <btBulletDynamicsCommon.h>
#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct options {
	int res = 32, frames = 200, warmup = 30, reps = 5, iterations = 10;
	bool self = false;
};

double run_once(const options &o, int *particles)
{
	btSoftBodyRigidBodyCollisionConfiguration config;
	btCollisionDispatcher dispatcher(&config);
	btDbvtBroadphase broadphase;
	btSequentialImpulseConstraintSolver solver;
	btSoftRigidDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
	world.setGravity(btVector3(0, -9.81f, 0));
	btSoftBodyWorldInfo &info = world.getWorldInfo();
	info.m_gravity = world.getGravity();
	info.m_sparsesdf.Initialize();

	btStaticPlaneShape floor_shape(btVector3(0, 1, 0), 0);
	btDefaultMotionState floor_motion;
	btRigidBody floor(btRigidBody::btRigidBodyConstructionInfo(0, &floor_motion, &floor_shape));
	world.addRigidBody(&floor);

	// Corners 00 and 10 (flags 1 + 2) are the top edge, pinned as in pbd's hang.
	btSoftBody *cloth = btSoftBodyHelpers::CreatePatch(info, btVector3(-0.5f, 1.5f, 0), btVector3(0.5f, 1.5f, 0),
							   btVector3(-0.5f, 0.5f, 0), btVector3(0.5f, 0.5f, 0), o.res,
							   o.res, 1 + 2, true);
	cloth->m_cfg.piterations = o.iterations;
	cloth->m_cfg.kDP = 0.01f;
	cloth->setTotalMass(0.2f);  // 0.2 kg/m^2, pbd's default
	if (o.self)
		cloth->m_cfg.collisions |= btSoftBody::fCollision::VF_SS | btSoftBody::fCollision::CL_SELF;
	world.addSoftBody(cloth);
	*particles = cloth->m_nodes.size();

	const btScalar dt = 1.0f / 60.0f;
	for (int f = 0; f < o.warmup; ++f)
		world.stepSimulation(dt, 1, dt);
	auto start = std::chrono::steady_clock::now();
	for (int f = 0; f < o.frames; ++f)
		world.stepSimulation(dt, 1, dt);
	double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
	world.removeSoftBody(cloth);
	delete cloth;
	world.removeRigidBody(&floor);
	return ms / o.frames;
}

bool parse(int argc, char **argv, options *o)
{
	for (int i = 1; i < argc; ++i) {
		if (!std::strcmp(argv[i], "--self")) {
			o->self = true;
			continue;
		}
		if (i + 1 >= argc)
			return false;
		char *end = nullptr;
		long v = std::strtol(argv[i + 1], &end, 10);
		if (*end || v < 0 || v > 100000)
			return false;
		if (!std::strcmp(argv[i], "--res") && v >= 2)
			o->res = (int)v;
		else if (!std::strcmp(argv[i], "--frames") && v >= 1)
			o->frames = (int)v;
		else if (!std::strcmp(argv[i], "--warmup"))
			o->warmup = (int)v;
		else if (!std::strcmp(argv[i], "--reps") && v >= 1)
			o->reps = (int)v;
		else if (!std::strcmp(argv[i], "--iterations") && v >= 1)
			o->iterations = (int)v;
		else
			return false;
		++i;
	}
	return true;
}

}  // namespace

int main(int argc, char **argv)
{
	options o;
	if (!parse(argc, argv, &o)) {
		std::fprintf(stderr, "usage: pbd-bullet-peer --res N [--frames F] [--warmup W] [--reps R] "
				     "[--iterations K] [--self]\n");
		return 2;
	}
	std::vector<double> ms;
	int particles = 0;
	for (int r = 0; r < o.reps; ++r)
		ms.push_back(run_once(o, &particles));
	std::sort(ms.begin(), ms.end());
	std::printf("bullet res=%d particles=%d iterations=%d ms_median=%.4f ms_min=%.4f ms_max=%.4f\n", o.res, particles,
		    o.iterations, ms[ms.size() / 2], ms.front(), ms.back());
	return 0;
}
