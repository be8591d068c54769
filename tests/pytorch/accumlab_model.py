"""AccumLab's model in torch.nn, for the checks that load its files (check_model_file.py,
check_loop_code.py): Linear-GELU-Linear-GELU-Linear, its layers named fc1..fc3 as core/model.h
registers them, so that a state_dict of AccumLab's tensors loads by name."""
import torch


class Mlp(torch.nn.Module):
    def __init__(self, in_features, hidden, classes):
        super().__init__()
        self.fc1 = torch.nn.Linear(in_features, hidden)
        self.fc2 = torch.nn.Linear(hidden, hidden)
        self.fc3 = torch.nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc3(torch.nn.functional.gelu(self.fc2(torch.nn.functional.gelu(self.fc1(x)))))
