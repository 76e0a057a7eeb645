"""Simulated competitions with known truth, for testing methods and planning campaigns."""

from humeval.simulate.battles import BattleSimulation, BattleTruth, arena_battles, simulate_battles, write_arena_battles
from humeval.simulate.competition import Simulation, Truth, simulate_competition
from humeval.simulate.grm import GRMTruth, simulate_grm
from humeval.simulate.ratings import RatingsSimulation, RatingsTruth, simulate_ratings

__all__ = ["BattleSimulation", "BattleTruth", "GRMTruth", "RatingsSimulation", "RatingsTruth", "Simulation", "Truth",
           "arena_battles", "simulate_battles", "simulate_competition", "simulate_grm", "simulate_ratings",
           "write_arena_battles"]
