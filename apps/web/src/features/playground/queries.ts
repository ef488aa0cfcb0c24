import { useQuery } from '@tanstack/react-query';
import { fetchUserGroups, fetchUserModels } from './api';

export const playgroundKeys = {
  all: ['playground'] as const,
  models: () => [...playgroundKeys.all, 'models'] as const,
  groups: () => [...playgroundKeys.all, 'groups'] as const,
};

export function useUserModels() {
  return useQuery({ queryKey: playgroundKeys.models(), queryFn: fetchUserModels });
}

export function useUserGroups() {
  return useQuery({ queryKey: playgroundKeys.groups(), queryFn: fetchUserGroups });
}
