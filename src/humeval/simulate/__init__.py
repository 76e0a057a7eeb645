"""Simulated competitions with known truth, for testing methods and planning campaigns."""

from humeval.simulate.competition import Simulation, Truth, simulate_competition
from humeval.simulate.grm import GRMTruth, simulate_grm

__all__ = ["GRMTruth", "Simulation", "Truth", "simulate_competition", "simulate_grm"]
